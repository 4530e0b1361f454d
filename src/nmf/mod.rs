//! The thesis's non-negative matrix factorisation: F (m x n, non-negative) ~ U V^T with U (m x k)
//! and V (n x k) non-negative, by Lee and Seung's multiplicative updates, built only from texla's
//! products and fused element-wise passes ([`factorize`]); the same updates in float64 on the
//! CPU ([`mod@reference`]); and the parts-based images the page factorises ([`parts_images`]).

mod factorize;
mod images;
pub mod reference;

pub use factorize::{check_rank, factorize, update, Factors, NmfOptions, Order, Rule};
pub use images::{parts_images, IMAGE_SIDE, MAX_IMAGES};
