//! Kernel sockets of the flows, made inside their namespaces.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::netns::cvt;

/// The port every flow's receiver listens on (each endpoint has its own address).
pub const PORT: u16 = 5001;

fn socket(kind: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: plain socket creation; the descriptor is owned at once.
    let fd = cvt(unsafe { libc::socket(libc::AF_INET, kind | libc::SOCK_CLOEXEC, 0) }, "socket")?;
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

pub fn sockaddr(addr: [u8; 4], port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in { sin_family: libc::AF_INET as libc::sa_family_t, sin_port: port.to_be(), sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes(addr) }, sin_zero: [0; 8] }
}

fn bind(fd: &OwnedFd, addr: [u8; 4], port: u16) -> io::Result<()> {
    let sa = sockaddr(addr, port);
    // SAFETY: sa is a valid sockaddr_in of its size.
    cvt(unsafe { libc::bind(fd.as_raw_fd(), (&sa as *const libc::sockaddr_in).cast(), std::mem::size_of::<libc::sockaddr_in>() as u32) }, "bind").map(|_| ())
}

/// A listening TCP socket at `addr`:[`PORT`] (in the calling thread's namespace).
pub fn tcp_listener(addr: [u8; 4]) -> io::Result<OwnedFd> {
    let fd = socket(libc::SOCK_STREAM)?;
    bind(&fd, addr, PORT)?;
    cvt(unsafe { libc::listen(fd.as_raw_fd(), 4) }, "listen")?;
    Ok(fd)
}

/// A TCP socket with congestion control `cc`, not yet connected.
pub fn tcp_sender(cc: &str) -> io::Result<OwnedFd> {
    let fd = socket(libc::SOCK_STREAM)?;
    let name = CString::new(cc).map_err(|_| io::Error::other("congestion control name with NUL"))?;
    let bytes = name.as_bytes();
    // SAFETY: TCP_CONGESTION takes the name's bytes and their length.
    cvt(unsafe { libc::setsockopt(fd.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_CONGESTION, bytes.as_ptr().cast(), bytes.len() as u32) }, &format!("TCP_CONGESTION {cc}"))?;
    abort_on_close(fd.as_raw_fd());
    Ok(fd)
}

/// Start connecting a non-blocking socket to `addr`:[`PORT`] (EINPROGRESS is the start).
pub fn start_connect(fd: &OwnedFd, addr: [u8; 4]) -> io::Result<()> {
    let sa = sockaddr(addr, PORT);
    // SAFETY: sa is a valid sockaddr_in of its size.
    let r = unsafe { libc::connect(fd.as_raw_fd(), (&sa as *const libc::sockaddr_in).cast(), std::mem::size_of::<libc::sockaddr_in>() as u32) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINPROGRESS) {
            return Err(io::Error::new(e.kind(), format!("connect: {e}")));
        }
    }
    Ok(())
}

/// The socket's pending error (`SO_ERROR`): how a non-blocking connect ended.
pub fn take_error(fd: RawFd) -> io::Result<()> {
    let mut err: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: SO_ERROR writes one int.
    cvt(unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, libc::SO_ERROR, (&mut err as *mut libc::c_int).cast(), &mut len) }, "SO_ERROR")?;
    if err != 0 {
        return Err(io::Error::from_raw_os_error(err));
    }
    Ok(())
}

pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a valid descriptor.
    let flags = cvt(unsafe { libc::fcntl(fd, libc::F_GETFL) }, "F_GETFL")?;
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) }, "F_SETFL").map(|_| ())
}

/// Close with a reset, not a FIN (`SO_LINGER` 0): a socket closed at the end of a run
/// would otherwise linger as an orphan retransmitting into a device that is gone,
/// holding its namespace (and the machine's orphan and memory counts) for minutes.
pub fn abort_on_close(fd: RawFd) {
    let l = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: SO_LINGER takes a struct linger of its size.
    unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_LINGER, (&l as *const libc::linger).cast(), std::mem::size_of::<libc::linger>() as u32) };
}

/// Accept one connection.
pub fn accept(fd: &OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: accept with no address wanted; the descriptor is owned at once.
    let c = cvt(unsafe { libc::accept4(fd.as_raw_fd(), std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_CLOEXEC) }, "accept")?;
    abort_on_close(c);
    Ok(unsafe { OwnedFd::from_raw_fd(c) })
}

/// A UDP socket bound to `addr`:[`PORT`] (receiver) or to `addr` on any port (sender).
pub fn udp(addr: [u8; 4], port: u16) -> io::Result<OwnedFd> {
    let fd = socket(libc::SOCK_DGRAM)?;
    bind(&fd, addr, port)?;
    Ok(fd)
}

/// Wait up to `timeout_ms` for `events` on `fd`; whether they came.
pub fn wait(fd: RawFd, events: libc::c_short, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd { fd, events, revents: 0 };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, timeout_ms) > 0 && p.revents & (events | libc::POLLHUP | libc::POLLERR) != 0 }
}

/// Ask the kernel to stamp each arriving datagram (`SO_TIMESTAMPNS`, CLOCK_REALTIME).
pub fn timestamp_arrivals(fd: RawFd) {
    let on: libc::c_int = 1;
    // SAFETY: SO_TIMESTAMPNS takes an int.
    unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, (&on as *const libc::c_int).cast(), std::mem::size_of::<libc::c_int>() as u32) };
}

/// One datagram without waiting: its length and the kernel's arrival stamp (ns of
/// CLOCK_REALTIME), None when nothing is queued.
pub fn recv_stamped(fd: RawFd, buf: &mut [u8]) -> Option<(usize, Option<u64>)> {
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let mut control = [0u64; 8]; // aligned room for one cmsg with a timespec
    // SAFETY: msghdr is plain data; all-zero is a valid start.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control);
    // SAFETY: msg points at valid buffers for its lengths.
    let r = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_DONTWAIT) };
    if r < 0 {
        return None;
    }
    let mut stamp = None;
    // SAFETY: the CMSG_* walk stays within msg_control as the kernel filled it.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                stamp = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Some((r as usize, stamp))
}
