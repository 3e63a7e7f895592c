//! A client's TCP stream that keeps the kernel's receive time of the data its latest read returned
//! (`SO_TIMESTAMPNS`). A round trip timed when loadgen's task gets to a message also holds the time that message
//! waited for the task: loadgen's threads (two by default) serve every client and share the 2 cores with the
//! server and the database. The socket's time says when the message had arrived, so the report can give both, and the
//! difference is loadgen's own share. Linux only; elsewhere the stream reads as it is and says nothing.

use std::{
    io,
    pin::Pin,
    task::{Context, Poll},
    time::SystemTime,
};
#[cfg(target_os = "linux")]
use std::{
    io::IoSliceMut,
    os::fd::{AsRawFd, RawFd},
    task::ready,
    time::{Duration, UNIX_EPOCH},
};

#[cfg(target_os = "linux")]
use nix::sys::{
    socket::{ControlMessageOwned, MsgFlags, recvmsg, setsockopt, sockopt::ReceiveTimestampns},
    time::TimeSpec,
};
#[cfg(target_os = "linux")]
use tokio::io::Interest;
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::TcpStream,
};

/// A [`TcpStream`] whose reads note the kernel's receive time.
#[derive(Debug)]
pub struct Stamped {
    inner: TcpStream,
    /// When the kernel received the last data of the latest read (the realtime clock), if it said.
    received: Option<SystemTime>,
    /// Room for one timestamp message.
    #[cfg(target_os = "linux")]
    control: Vec<u8>,
}

impl Stamped {
    /// Asks the kernel to timestamp what `inner` receives.
    #[cfg(target_os = "linux")]
    pub fn new(inner: TcpStream) -> io::Result<Stamped> {
        setsockopt(&inner, ReceiveTimestampns, &true)?;
        Ok(Stamped {
            inner,
            received: None,
            control: nix::cmsg_space!(TimeSpec),
        })
    }

    /// No timestamps here: the stream reads as it is.
    #[cfg(not(target_os = "linux"))]
    pub fn new(inner: TcpStream) -> io::Result<Stamped> {
        Ok(Stamped {
            inner,
            received: None,
        })
    }

    /// When the kernel received the last data of the latest read.
    pub fn received(&self) -> Option<SystemTime> {
        self.received
    }
}

#[cfg(target_os = "linux")]
/// One `recvmsg` of `fd` into `buf`: the bytes read, and the kernel's receive time of the last of them.
fn receive(fd: RawFd, control: &mut [u8], buf: &mut [u8]) -> io::Result<(usize, Option<SystemTime>)> {
    let mut iov = [IoSliceMut::new(buf)];
    let message = recvmsg::<()>(fd, &mut iov, Some(control), MsgFlags::empty())?;
    let mut received = None;
    for c in message.cmsgs()? {
        if let ControlMessageOwned::ScmTimestampns(t) = c {
            let since = Duration::new(t.tv_sec().max(0) as u64, t.tv_nsec().max(0) as u32);
            received = Some(UNIX_EPOCH + since);
        }
    }
    Ok((message.bytes, received))
}

impl AsyncRead for Stamped {
    #[cfg(not(target_os = "linux"))]
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }

    #[cfg(target_os = "linux")]
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            ready!(this.inner.poll_read_ready(cx))?;
            // tungstenite hands over initialised buffers: this zeroes nothing then.
            let room = buf.initialize_unfilled();
            let asked = room.len();
            let fd = this.inner.as_raw_fd();
            let control = &mut this.control;
            // A read that returns less than it asked for has emptied the socket: its readiness is cleared then,
            // as tokio's own `TcpStream` does, so that the next read waits for the next data instead of making
            // a system call that only says EAGAIN (one such call per frame was ~half of loadgen's reads).
            // `try_io` clears the readiness it saw before the closure ran when the closure says `WouldBlock`
            // (data that arrived since set a newer one, which stays), so a short read is handed out through
            // `drained` and reported to `try_io` as `WouldBlock`.
            let mut drained = None;
            let read = this.inner.try_io(Interest::READABLE, || {
                let (n, received) = receive(fd, control, room)?;
                if n > 0 && n < asked {
                    drained = Some((n, received));
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                Ok((n, received))
            });
            match (read, drained) {
                (_, Some((n, received))) | (Ok((n, received)), None) => {
                    buf.advance(n);
                    this.received = received;
                    return Poll::Ready(Ok(()));
                }
                // A spurious readiness: `try_io` cleared it; wait again.
                (Err(e), None) if e.kind() == io::ErrorKind::WouldBlock => continue,
                (Err(e), None) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for Stamped {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
