
// The output of a compute kernel: written texel by texel with textureStore.
@group(0) @binding(7) var out_tex: texture_storage_2d<rgba32float, write>;
