#version 460
// Written by Cairn (build/vulkan): the ollama module zip leaves out
// ggml-vulkan/vulkan-shaders/feature-tests, and without it CMake takes
// every glslc extension for supported. glslc compiling this shows it is.
#extension GL_KHR_cooperative_matrix : require

layout(local_size_x = 1) in;

void main() {}
