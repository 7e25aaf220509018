//! Fixed-size tables indexed by VC slot or port without bounds checks in release builds.
//!
//! The fabrics' hot loops index their per-slot and per-port arrays a few dozen times per flit
//! (or block); the bounds checks are about a seventh of all instructions executed. Every index
//! used on these tables is a port number below the topology's port count, or a VC slot
//! `port << shift | vc` with such a port and `vc` below the VC count (`event::VcSlots`), and
//! every table is sized at construction to hold all of them. Debug builds check each access
//! (`debug_assert!`), and CI runs the engine's tests, the invariant-checking property tests
//! among them, with debug assertions on (the `checked` profile).

use std::ops::{Index, IndexMut};

/// A boxed slice whose indexing is checked only in debug builds.
#[derive(Debug, Clone)]
pub(crate) struct Table<T>(Box<[T]>);

impl<T: Clone> Table<T> {
    /// `len` copies of `value`.
    pub(crate) fn filled(value: T, len: usize) -> Table<T> {
        Table(vec![value; len].into_boxed_slice())
    }
}

impl<T> Table<T> {
    /// The entries, in index order.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

impl<T> Default for Table<T> {
    /// An empty table.
    fn default() -> Table<T> {
        Table(Box::default())
    }
}

impl<T> From<Vec<T>> for Table<T> {
    fn from(values: Vec<T>) -> Table<T> {
        Table(values.into_boxed_slice())
    }
}

impl<T> Index<usize> for Table<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        debug_assert!(
            i < self.0.len(),
            "index {i} outside a table of {}",
            self.0.len()
        );
        // SAFETY: indices are ports or VC slots of this network, all below the table length by
        // construction (see the module documentation); debug builds check it above.
        unsafe { self.0.get_unchecked(i) }
    }
}

impl<T> IndexMut<usize> for Table<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(
            i < self.0.len(),
            "index {i} outside a table of {}",
            self.0.len()
        );
        // SAFETY: as for `index`.
        unsafe { self.0.get_unchecked_mut(i) }
    }
}

/// Records stored by index, with freed indices reused; indexing is checked only in debug
/// builds. Every index used is one [`Pool::insert`] returned and not yet removed.
#[derive(Debug, Clone)]
pub(crate) struct Pool<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Pool {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Pool<T> {
    /// Stores `item` in a free slot; returns its index.
    pub(crate) fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(index) => {
                self[index as usize] = item;
                index
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Frees slot `index` for reuse.
    pub(crate) fn remove(&mut self, index: u32) {
        debug_assert!(!self.free.contains(&index), "slot {index} freed twice");
        self.free.push(index);
    }

    /// Slots ever used (live or free).
    pub(crate) fn capacity(&self) -> usize {
        self.items.len()
    }
}

impl<T> Index<usize> for Pool<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        debug_assert!(
            i < self.items.len(),
            "index {i} outside a pool of {}",
            self.items.len()
        );
        // SAFETY: indices come from `insert`, below the length, which never shrinks; debug
        // builds check it above.
        unsafe { self.items.get_unchecked(i) }
    }
}

impl<T> IndexMut<usize> for Pool<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(
            i < self.items.len(),
            "index {i} outside a pool of {}",
            self.items.len()
        );
        // SAFETY: as for `index`.
        unsafe { self.items.get_unchecked_mut(i) }
    }
}
