//! sandbox (under construction)
