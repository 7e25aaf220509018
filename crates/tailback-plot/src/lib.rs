//! Plots of Tailback results.
