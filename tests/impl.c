/* The one translation unit that holds the implementation, compiled as C. */
#define UMAP_IMPLEMENTATION
#include "umap.h"
