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
    Ok(fd)
}

/// Connect (blocking) to `addr`:[`PORT`].
pub fn connect(fd: &OwnedFd, addr: [u8; 4]) -> io::Result<()> {
    let sa = sockaddr(addr, PORT);
    // SAFETY: sa is a valid sockaddr_in of its size.
    cvt(unsafe { libc::connect(fd.as_raw_fd(), (&sa as *const libc::sockaddr_in).cast(), std::mem::size_of::<libc::sockaddr_in>() as u32) }, "connect").map(|_| ())
}

/// Accept one connection.
pub fn accept(fd: &OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: accept with no address wanted; the descriptor is owned at once.
    let c = cvt(unsafe { libc::accept4(fd.as_raw_fd(), std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_CLOEXEC) }, "accept")?;
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
