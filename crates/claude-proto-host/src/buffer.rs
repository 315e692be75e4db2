//! Buffers sized to the traffic: they grow for a burst or a large line
//! and shrink back once it has passed, so an idle session holds little.

use std::collections::VecDeque;

/// A read buffer for one of the CLI's pipes: small while the pipe is
/// quiet, as large as `max` while reads fill it.
///
/// Give [`space`](Self::space) to the read; then, after a read of `n`
/// bytes, take them with [`filled`](Self::filled) (a read that filled the
/// whole buffer makes the next one `max` bytes); when a read would block,
/// call [`quiet`](Self::quiet), which shrinks the buffer back to `min`.
/// Nothing is allocated before the first read.
#[derive(Debug)]
pub struct ReadBuffer {
    buf: Vec<u8>,
    min: usize,
    max: usize,
    /// The last read filled the buffer: the next one gets `max`.
    grow: bool,
}

impl ReadBuffer {
    /// A buffer of `min` bytes (at least one) that grows to `max` (at
    /// least `min`).
    pub fn new(min: usize, max: usize) -> Self {
        let min = min.max(1);
        Self {
            buf: Vec::new(),
            min,
            max: max.max(min),
            grow: false,
        }
    }

    /// Where the next read goes.
    pub fn space(&mut self) -> &mut [u8] {
        if self.grow {
            self.grow = false;
            self.buf = vec![0; self.max];
        } else if self.buf.is_empty() {
            self.buf = vec![0; self.min];
        }
        &mut self.buf
    }

    /// The `n` bytes the last read put in [`space`](Self::space). If they
    /// filled it, the next read gets `max` bytes of room: the data come
    /// faster than reads of this size take them.
    pub fn filled(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.buf.len());
        self.grow = n == self.buf.len() && n < self.max;
        &self.buf[..n]
    }

    /// A read would block: the pipe is drained, so give back the room
    /// beyond `min`.
    pub fn quiet(&mut self) {
        self.grow = false;
        if self.buf.len() > self.min {
            self.buf.truncate(self.min);
            self.buf.shrink_to_fit();
        }
    }

    /// Bytes the buffer holds now.
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

/// Shrinks `deque` after a burst: to nothing when empty, to twice its
/// length once that is under a quarter of its capacity (so a queue in
/// steady use is not shrunk and grown back again and again).
pub fn trim_deque<T>(deque: &mut VecDeque<T>) {
    if deque.is_empty() {
        *deque = VecDeque::new();
    } else if deque.len() < deque.capacity() / 4 {
        deque.shrink_to(deque.len() * 2);
    }
}

/// Bytes of room in `deque` beyond its elements.
pub fn deque_spare<T>(deque: &VecDeque<T>) -> usize {
    (deque.capacity() - deque.len()) * std::mem::size_of::<T>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_buffer_grows_for_full_reads_and_shrinks_when_quiet() {
        let mut buf = ReadBuffer::new(4096, 65536);
        assert_eq!(buf.capacity(), 0, "nothing before the first read");
        assert_eq!(buf.space().len(), 4096);
        // A short read keeps the size.
        buf.space()[..10].fill(b'a');
        assert_eq!(buf.filled(10), &[b'a'; 10]);
        assert_eq!(buf.space().len(), 4096);
        // A full read: the bytes stay valid, the next read gets `max`.
        buf.space().fill(b'b');
        assert_eq!(buf.filled(4096), &[b'b'; 4096][..]);
        assert_eq!(buf.space().len(), 65536);
        buf.space().fill(b'c');
        assert_eq!(buf.filled(65536).len(), 65536);
        assert_eq!(buf.space().len(), 65536);
        // Quiet: back to `min`.
        buf.quiet();
        assert!(buf.capacity() <= 4096, "{}", buf.capacity());
        assert_eq!(buf.space().len(), 4096);
    }

    #[test]
    fn trim_deque_frees_an_empty_queue_and_shrinks_a_sparse_one() {
        let mut deque: VecDeque<u64> = (0..1000).collect();
        deque.drain(..990);
        trim_deque(&mut deque);
        assert!(deque.capacity() < 100, "{}", deque.capacity());
        assert_eq!(
            deque.iter().copied().collect::<Vec<_>>(),
            (990..1000).collect::<Vec<_>>()
        );
        // In steady use (over a quarter full) it is left alone.
        let mut steady: VecDeque<u64> = (0..100).collect();
        steady.drain(..60);
        let capacity = steady.capacity();
        trim_deque(&mut steady);
        assert_eq!(steady.capacity(), capacity);
        deque.clear();
        trim_deque(&mut deque);
        assert_eq!(deque.capacity(), 0);
        assert_eq!(deque_spare(&deque), 0);
    }
}
