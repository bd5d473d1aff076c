/* umap_web_pre.js - emcc --extern-pre-js for examples/web/umap_web.c: opens a
   function around all of Emscripten's output (umap_web_post.js closes it),
   so the page can start the module in a Web Worker from a Blob made of the
   function's own source: a page opened from file:// may not load a worker
   script by URL. umapWebModule(settings) starts one instance and returns
   its Module object (settings.onRuntimeInitialized says when it is ready). */
function umapWebModule(Module) {
