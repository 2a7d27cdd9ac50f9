//! `kernel-stats` is a binary (`src/main.rs`: what the Vulkan driver made of wavekit's kernels); this library target is empty.
#![warn(missing_docs)]
