//! validate (under construction)
