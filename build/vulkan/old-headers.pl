#!/usr/bin/perl -0pi
# Applied by build.sh to the copy of ggml-vulkan.cpp when the installed
# Vulkan headers predate VK_EXT_layer_settings (1.3.272; Debian 12 has
# 1.3.239): ggml passes that extension's structure to vkCreateInstance only
# to configure the validation layer (GGML_VULKAN_VALIDATE, off here), so
# without it the instance is created as before the extension existed.
s{(    VkBool32 enable_best_practice = layer_settings;\n.*?    vk::InstanceCreateInfo instance_create_info\(vk::InstanceCreateFlags\{\}, &app_info, layers, extensions, &layer_setting_info\);\n)}
 {#if defined(VK_EXT_layer_settings)\n$1#else\n    GGML_UNUSED(layer_settings);\n    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions);\n#endif\n}s
	or die "old-headers.pl: the instance creation in ggml-vulkan.cpp has changed; update build/vulkan/old-headers.pl\n";
