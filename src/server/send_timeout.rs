//! A deadline on writes to a client: a connection whose client takes no bytes for
//! [`Limits::send_timeout`](super::Limits::send_timeout) while the server has bytes for it is
//! closed.
//!
//! A client that stops reading an SSE stream (a hung tab, a stopped process, a proxy that
//! stopped forwarding) does not close its connection: its kernel keeps acknowledging with a
//! zero window, so hyper's write waits forever, and with it the connection, its buffers and the
//! events queued for the stream. The task's fan-out already stops feeding such a stream
//! (`task::fanout`); this closes the connection too. The timer runs only while a write or a
//! flush is blocked, and starts again at every byte the client takes, so a slow reader that
//! keeps taking bytes is not cut off here, nor is a quiet stream (nothing to write).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// An I/O stream whose writes fail with [`io::ErrorKind::TimedOut`] once one has been blocked
/// for the timeout (a zero timeout: never).
pub(crate) struct SendTimeout<S> {
    inner: S,
    timeout: Duration,
    /// Runs while a write or flush is blocked; `None` while they go through.
    blocked: Option<Pin<Box<Sleep>>>,
}

impl<S> SendTimeout<S> {
    pub(crate) fn new(inner: S, timeout: Duration) -> Self {
        Self {
            inner,
            timeout,
            blocked: None,
        }
    }

    /// What to answer for a write that did not go through (`Pending`): still `Pending`, or
    /// the timeout's error once it has passed.
    fn blocked<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.timeout;
        if timeout.is_zero() {
            // Turned off: the write waits as long as the client does.
            return Poll::Pending;
        }
        let timer = self
            .blocked
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        ready!(timer.as_mut().poll(cx));
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("the client took no bytes for {} s", timeout.as_secs_f64()),
        )))
    }

    /// The outcome of a write or flush: `Pending` arms the timer, anything else stops it.
    fn track<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match poll {
            Poll::Pending => self.blocked(cx),
            ready => {
                self.blocked = None;
                ready
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for SendTimeout<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for SendTimeout<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.track(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.track(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.track(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.track(cx, poll)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_write_the_reader_never_takes_fails_after_the_timeout() {
        // A pipe with room for 64 bytes whose other end is never read.
        let (writer, _reader) = tokio::io::duplex(64);
        let mut writer = SendTimeout::new(writer, Duration::from_secs(3));
        let error = writer.write_all(&[7; 1024]).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reader_that_keeps_taking_bytes_is_never_timed_out() {
        let (writer, mut reader) = tokio::io::duplex(64);
        let mut writer = SendTimeout::new(writer, Duration::from_secs(3));
        let reading = tokio::spawn(async move {
            let mut buffer = [0; 32];
            let mut total = 0;
            while total < 4096 {
                tokio::time::sleep(Duration::from_secs(1)).await;
                total += tokio::io::AsyncReadExt::read(&mut reader, &mut buffer)
                    .await
                    .unwrap();
            }
        });
        // 4 KiB at 32 bytes a second: minutes in all, never 3 s without progress.
        writer.write_all(&[7; 4096]).await.unwrap();
        reading.await.unwrap();
    }
}
