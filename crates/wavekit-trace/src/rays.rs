//! Ray generation.
