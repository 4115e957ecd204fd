//! timeparse (under construction)
