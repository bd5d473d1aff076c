/* umap_web_post.js - emcc --extern-post-js: closes umap_web_pre.js's function. */
return Module;
}
