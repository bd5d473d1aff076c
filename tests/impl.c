/* The one translation unit that holds the implementation, compiled as C:
   umap.h's and, through umap_vk.h, the Vulkan side's (with UMAP_VULKAN when
   the Makefile found the Vulkan headers, else its "not built" stand-ins). */
#define UMAP_IMPLEMENTATION
#define UMAP_VK_IMPLEMENTATION
#include "umap_vk.h"
