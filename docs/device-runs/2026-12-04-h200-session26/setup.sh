# Sourced by this folder's scripts, from the repository root on the H200 machine, with the
# release CLI in .dev/bin and the Vulkan loader's packages in .gl/: unpacks the loader, points
# Vulkan at NVIDIA's driver, makes OUTDIR (the first argument) and the scratch folder $R, and
# sets $W to the CLI.
OUTDIR=${1:?usage: SCRIPT OUTDIR}
for f in .gl/*.deb; do dpkg -x "$f" / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p "$OUTDIR"; R=/tmp/r; rm -rf $R; mkdir -p $R
W=.dev/bin/wavekit
