//! Tests of the patch semantics, one file per patch type.

mod json;
mod managed;
mod never_panics;
mod strategic;
