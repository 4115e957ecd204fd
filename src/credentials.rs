//! credentials (under construction)
