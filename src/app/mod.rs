//! app (under construction)
