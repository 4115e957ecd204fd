//! ui (under construction)
