//! The engines that need a checker's primitives, as implementations of
//! [`Engine`](crate::Engine): `loom` (feature `loom`) and `shuttle`
//! (feature `shuttle`, random and PCT schedules); each module exists only with its feature.

#[cfg(feature = "loom")]
pub mod loom;
#[cfg(feature = "shuttle")]
mod saved_schedule;
#[cfg(feature = "shuttle")]
pub mod shuttle;
#[cfg(feature = "shuttle")]
mod shuttle_target;
