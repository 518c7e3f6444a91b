# Sourced by the scripts beside it, from the repository root: unpacks
# .bin/exp.tar.xz, installs .gl/*.deb (the GL and Vulkan loaders), points
# Vulkan at NVIDIA's driver when it is there and makes a missing adapter a
# test failure.
tar -xJf .bin/exp.tar.xz -C .bin
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$nvidia_icd" ]; then
	export VK_DRIVER_FILES=$nvidia_icd
fi
export SOFTGRAPH_REQUIRE_GPU=1
