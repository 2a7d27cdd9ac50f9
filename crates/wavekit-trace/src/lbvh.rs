//! GPU LBVH build.
