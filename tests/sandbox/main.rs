//! The embedded sandbox over real HTTP: lists, writes and every fault kind.

mod faults;
mod lists;
mod writes;
