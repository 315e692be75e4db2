//! [`Page`]: which part of a list to return.

/// Which part of a list to return: skip `offset` items, then return at
/// most `limit` (all the rest if `None` or `Some(0)`, as the SDKs read a
/// zero limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Page {
    /// The most items to return.
    pub limit: Option<usize>,
    /// How many items to skip first.
    pub offset: usize,
}

impl Page {
    /// Every item.
    pub fn all() -> Self {
        Self::default()
    }

    /// At most `limit` items.
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skip the first `offset` items.
    #[must_use]
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    pub(crate) fn apply<T>(self, items: Vec<T>) -> Vec<T> {
        let take = self.limit.filter(|&l| l > 0).unwrap_or(usize::MAX);
        items.into_iter().skip(self.offset).take(take).collect()
    }
}
