use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

fn read_all(mut reader: PipeReader) -> Vec<u8> {
    let mut all = Vec::new();
    reader.read_to_end(&mut all).expect("reads end");
    all
}

#[test]
fn bytes_arrive_in_order_and_the_end_follows_the_last() {
    let (mut writer, reader) = pipe(7);
    let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    let sent = data.clone();
    let writing = std::thread::spawn(move || {
        // Chunks of every size, through a pipe smaller than most of them.
        for chunk in sent.chunks(13) {
            writer.write_all(chunk).expect("the reader reads");
        }
        // Dropped: the end.
    });
    assert_eq!(read_all(reader), data);
    writing.join().expect("the writer returns");
}

#[test]
fn a_pipe_holds_at_most_its_capacity() {
    let (writer, reader) = pipe(4);
    let state = &writer.pipe;
    assert_eq!(state.lock().put(b"abcdef").map(Result::ok), Some(Some(4)));
    assert!(state.lock().put(b"g").is_none(), "full: the writer waits");
    let mut buf = [0; 3];
    assert_eq!(reader.pipe.lock().take(&mut buf), Some(3));
    assert_eq!(&buf, b"abc");
    assert_eq!(state.lock().put(b"ghij").map(Result::ok), Some(Some(3)));
    assert_eq!(state.lock().held(), 4);
    assert!(
        state.lock().bytes.capacity() <= 4,
        "never more room than that"
    );
}

#[test]
fn dropping_the_reader_fails_writes_and_drops_what_is_held() {
    let (mut writer, reader) = pipe(16);
    writer.write_all(b"held").expect("room");
    drop(reader);
    let error = writer.write(b"more").expect_err("nobody reads");
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(writer.pipe.lock().held(), 0);
}

#[test]
fn dropping_the_writer_ends_reads_after_what_is_held() {
    let (mut writer, mut reader) = pipe(16);
    writer.write_all(b"last").expect("room");
    drop(writer);
    let mut buf = [0; 16];
    assert_eq!(reader.read(&mut buf).expect("held bytes"), 4);
    assert_eq!(&buf[..4], b"last");
    assert_eq!(reader.read(&mut buf).expect("the end"), 0);
}

#[test]
fn closing_the_read_side_ends_a_blocked_read() {
    let (_writer, mut reader) = pipe(16);
    let handle = reader.handle();
    // Whether the read has blocked yet or not, the close ends it.
    let reading = std::thread::spawn(move || reader.read_timeout(&mut [0; 8], None));
    handle.close_read();
    assert_eq!(reading.join().expect("returns").expect("an end"), 0);
}

#[test]
fn closing_the_write_side_fails_a_blocked_write() {
    let (mut writer, _reader) = pipe(4);
    writer.write_all(b"full").expect("room");
    let handle = writer.handle();
    let writing = std::thread::spawn(move || writer.write(b"more"));
    handle.close_write();
    let error = writing.join().expect("returns").expect_err("closed");
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
}

#[test]
fn waits_with_a_limit_time_out() {
    let (mut writer, mut reader) = pipe(4);
    let error = reader
        .read_timeout(&mut [0; 4], Some(Duration::from_millis(1)))
        .expect_err("nothing written");
    assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    let error = writer
        .write_all_timeout(b"too long", Duration::from_millis(1))
        .expect_err("nothing read");
    assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    // The wait left the pipe usable.
    assert_eq!(reader.read_timeout(&mut [0; 8], None).expect("held"), 4);
}

/// A waker that counts its wakes.
#[derive(Default)]
struct Count(AtomicUsize);

impl std::task::Wake for Count {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn an_async_reader_is_woken_by_a_write_and_an_async_writer_by_a_read() {
    let (mut writer, mut reader) = pipe(4);
    let count = Arc::new(Count::default());
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let mut buf = [0; 8];
    assert!(reader.pipe.poll_read(&mut cx, &mut buf).is_pending());
    writer.write_all(b"ab").expect("room");
    assert_eq!(
        count.0.load(Ordering::SeqCst),
        1,
        "the write woke the reader"
    );
    assert!(matches!(
        reader.pipe.poll_read(&mut cx, &mut buf),
        Poll::Ready(Ok(2))
    ));

    writer.write_all(b"cdef").expect("room");
    assert!(writer.pipe.poll_write(&mut cx, b"g").is_pending(), "full");
    assert_eq!(reader.read(&mut buf).expect("held"), 4);
    assert_eq!(
        count.0.load(Ordering::SeqCst),
        2,
        "the read woke the writer"
    );
    assert!(matches!(
        writer.pipe.poll_write(&mut cx, b"g"),
        Poll::Ready(Ok(1))
    ));

    // Closing wakes a waiting reader, which then sees the end.
    assert!(matches!(
        reader.pipe.poll_read(&mut cx, &mut buf),
        Poll::Ready(Ok(1))
    ));
    assert!(reader.pipe.poll_read(&mut cx, &mut buf).is_pending());
    drop(writer);
    assert_eq!(
        count.0.load(Ordering::SeqCst),
        3,
        "the close woke the reader"
    );
    assert!(matches!(
        reader.pipe.poll_read(&mut cx, &mut buf),
        Poll::Ready(Ok(0))
    ));
}

#[tokio::test]
async fn tokio_reads_and_writes_through_a_pipe() {
    use ::tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut writer, mut reader) = pipe(3);
    let writing = ::tokio::spawn(async move {
        AsyncWriteExt::write_all(&mut writer, b"hello, pipe").await?;
        AsyncWriteExt::shutdown(&mut writer).await
    });
    let mut all = Vec::new();
    AsyncReadExt::read_to_end(&mut reader, &mut all)
        .await
        .expect("reads end");
    assert_eq!(all, b"hello, pipe");
    writing.await.expect("joins").expect("writes");
}

#[test]
fn a_batch_is_written_whole_by_trading_buffers_or_by_copies() {
    let (mut writer, mut reader) = pipe(8);
    let deadline = Duration::from_secs(60);
    // An empty pipe takes the batch's buffer.
    let mut batch = b"abc".to_vec();
    writer.write_batch(&mut batch, deadline).expect("room");
    assert!(batch.is_empty(), "left empty to be filled again");
    // A pipe that holds bytes takes a copy after them.
    batch.extend_from_slice(b"de");
    writer.write_batch(&mut batch, deadline).expect("room");
    assert!(batch.is_empty());
    let mut buf = [0; 8];
    assert_eq!(reader.read(&mut buf).expect("held"), 5);
    assert_eq!(&buf[..5], b"abcde");
    // A batch larger than the pipe goes in pieces as the reader reads.
    let big: Vec<u8> = (0..100u8).collect();
    let reading = std::thread::spawn(move || read_all(reader));
    batch.extend_from_slice(&big);
    writer
        .write_batch(&mut batch, deadline)
        .expect("read meanwhile");
    drop(writer);
    assert_eq!(reading.join().expect("returns"), big);
    // Once the reader is gone, a batch fails and is dropped.
    batch.extend_from_slice(b"late");
    let (mut writer, reader) = pipe(8);
    drop(reader);
    let error = writer
        .write_batch(&mut batch, deadline)
        .expect_err("closed");
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    assert!(batch.is_empty());
}

#[test]
fn an_empty_async_read_asks_to_be_polled_again_while_it_may_spin() {
    let (mut writer, mut reader) = pipe(8);
    let count = Arc::new(Count::default());
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let mut buf = [0; 8];
    assert!(reader.poll_read_soon(&mut cx, &mut buf).is_pending());
    // At once (with another CPU to answer on), or only when bytes come.
    let asked = usize::from(can_spin());
    assert_eq!(count.0.load(Ordering::SeqCst), asked);
    assert_eq!(reader.empty_since.is_some(), can_spin());
    writer.write_all(b"x").expect("room");
    assert_eq!(
        count.0.load(Ordering::SeqCst),
        asked + 1,
        "the write woke it"
    );
    assert!(matches!(
        reader.poll_read_soon(&mut cx, &mut buf),
        Poll::Ready(Ok(1))
    ));
    assert!(
        reader.empty_since.is_none(),
        "a read that got bytes starts over"
    );
}

#[test]
fn waits_without_an_instant_to_end_them_have_no_limit() {
    let (mut writer, mut reader) = pipe(4);
    let data: Vec<u8> = (0..64u8).collect();
    let sent = data.clone();
    let reading = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0; 3];
        loop {
            match reader.read_timeout(&mut buf, Some(Duration::MAX)) {
                Ok(0) => return all,
                Ok(n) => all.extend_from_slice(&buf[..n]),
                Err(e) => panic!("{e}"),
            }
        }
    });
    writer
        .write_all_timeout(&sent, Duration::MAX)
        .expect("the reader reads");
    drop(writer);
    assert_eq!(reading.join().expect("returns"), data);
}

#[test]
fn a_traded_buffer_never_gives_the_pipe_more_room_than_its_capacity() {
    let (mut writer, reader) = pipe(16);
    let deadline = Duration::from_secs(60);
    // Allocated beyond the pipe's capacity: copied, not traded.
    let mut batch = Vec::with_capacity(64);
    batch.extend_from_slice(b"abc");
    writer.write_batch(&mut batch, deadline).expect("room");
    assert!(reader.pipe.lock().bytes.capacity() <= 16);
    assert_eq!(batch.capacity(), 64, "the batch kept its own buffer");
    let mut buf = [0; 16];
    assert_eq!(reader.pipe.lock().take(&mut buf), Some(3));
    // Within it: traded.
    let mut batch = Vec::with_capacity(8);
    batch.extend_from_slice(b"defg");
    writer.write_batch(&mut batch, deadline).expect("room");
    let state = reader.pipe.lock();
    assert!(state.bytes.capacity() <= 16);
    assert_eq!(state.held(), 4);
}
