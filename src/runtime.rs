//! runtime (under construction)
