//! Typed indices, so that a node can never be passed where a router or port is expected.

macro_rules! typed_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            /// Wraps an index.
            #[inline]
            pub const fn new(index: usize) -> Self {
                $name(index as u32)
            }

            /// The index as `usize`.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

typed_id!(
    /// A terminal node (and its network interface).
    NodeId
);
typed_id!(
    /// A router.
    RouterId
);
typed_id!(
    /// A router port, numbered globally across all routers.
    PortId
);
