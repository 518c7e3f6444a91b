# Sourced by the device-call scripts beside it (fusion-h200/sweep.sh,
# nvidia-open-items.sh), from the repository root: unpacks .bin/bins.tar.xz
# when present, installs .gl/*.deb when present, points Vulkan at NVIDIA's
# driver when it is there, and checks that every binary named in
# $device_bins is in .bin/. Sets root and bin.
root=$(pwd)
bin=$root/.bin
if [ -f "$bin/bins.tar.xz" ]; then
	tar -xJf "$bin/bins.tar.xz" -C "$bin"
fi
if ls "$root"/.gl/*.deb >/dev/null 2>&1; then
	for f in "$root"/.gl/*.deb; do dpkg -x "$f" /; done
	ldconfig
fi
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$nvidia_icd" ]; then
	export VK_DRIVER_FILES=$nvidia_icd
fi
for b in $device_bins; do
	if [ ! -x "$bin/$b" ]; then
		echo "$0: $bin/$b is missing; build it here first (see the top of $0)" >&2
		exit 2
	fi
done
