# Shared shell helpers for wavekit's scripts. Source it; do not run it.

# Quiet Mesa's Wayland probe ("XDG_RUNTIME_DIR is invalid") on headless machines: one folder
# per user, made once and kept, so that runs do not leave one each behind.
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    XDG_RUNTIME_DIR=/tmp/wavekit-xdg-$(id -u)
    mkdir -p "$XDG_RUNTIME_DIR"
    chmod 700 "$XDG_RUNTIME_DIR"
    export XDG_RUNTIME_DIR
fi

have_vulkan_loader() { ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; }
have_lavapipe() { ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; }
have_any_icd() {
    ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1 ||
        [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]
}

# Install Mesa lavapipe (software Vulkan) and the Vulkan loader with apt, as root.
install_lavapipe() {
    if [ "$(id -u)" != 0 ]; then
        echo "wavekit: Mesa lavapipe is needed but this is not root; run:" >&2
        echo "  sudo apt-get install -y mesa-vulkan-drivers libvulkan1" >&2
        return 1
    fi
    echo "wavekit: installing Mesa lavapipe (mesa-vulkan-drivers, libvulkan1) ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >&2
}

# Make sure some Vulkan driver exists: install lavapipe when there is none.
ensure_vulkan() {
    if have_vulkan_loader && have_any_icd; then return 0; fi
    install_lavapipe
}

# Make sure lavapipe itself exists (the test command runs on it at every width).
ensure_lavapipe() {
    if have_vulkan_loader && have_lavapipe; then return 0; fi
    install_lavapipe
}

# Make sure ffmpeg exists: the stream tests compare with a stream it makes and measure with its
# psnr filter (an outside program, issue 47). Installed with apt as root.
ensure_ffmpeg() {
    if command -v ffmpeg >/dev/null 2>&1; then return 0; fi
    if [ "$(id -u)" != 0 ]; then
        echo "wavekit: ffmpeg is needed by the stream tests; run: sudo apt-get install -y ffmpeg" >&2
        return 1
    fi
    echo "wavekit: installing ffmpeg ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq ffmpeg >/dev/null 2>&1 ||
        { apt-get update -qq >&2 && apt-get install -y -qq ffmpeg >/dev/null; }
}
