//! The one route a host has, rewritten with route metrics through rtnetlink (what
//! `ip route replace ... initcwnd N initrwnd M` sends). Written by hand: one fixed message and its
//! acknowledgement, smaller than any netlink crate's API for it; the bytes are checked
//! by a test.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::netns::cvt;

/// include/uapi/linux/rtnetlink.h: `RTAX_INITCWND`, `RTAX_INITRWND` in
/// `enum { RTAX_UNSPEC, ... }`.
pub const RTAX_INITCWND: u16 = 11;
pub const RTAX_INITRWND: u16 = 14;
/// include/uapi/linux/rtnetlink.h: `RTA_DST`, `RTA_OIF`, `RTA_PREFSRC`.
const RTA_DST: u16 = 1;
const RTA_OIF: u16 = 4;
const RTA_PREFSRC: u16 = 7;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
const NLM_F_REPLACE: u16 = 0x100;
const NLM_F_CREATE: u16 = 0x400;

fn attr(out: &mut Vec<u8>, kind: u16, payload: &[u8]) {
    out.extend_from_slice(&((4 + payload.len()) as u16).to_ne_bytes());
    out.extend_from_slice(&kind.to_ne_bytes());
    out.extend_from_slice(payload);
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// RTM_NEWROUTE (create or replace) of `net`/`prefix` through interface `ifindex` with
/// source `src` and the route metrics `metrics` (`RTAX_*`, value).
pub fn replace_message(net: [u8; 4], prefix: u8, ifindex: u32, src: [u8; 4], metrics: &[(u16, u32)]) -> Vec<u8> {
    let mut body = vec![libc::AF_INET as u8, prefix, 0, 0, libc::RT_TABLE_MAIN, libc::RTPROT_KERNEL, libc::RT_SCOPE_LINK, libc::RTN_UNICAST];
    body.extend_from_slice(&0u32.to_ne_bytes()); // rtm_flags
    attr(&mut body, RTA_DST, &net);
    attr(&mut body, RTA_OIF, &ifindex.to_ne_bytes());
    attr(&mut body, RTA_PREFSRC, &src);
    let mut nested = Vec::new();
    for &(kind, value) in metrics {
        attr(&mut nested, kind, &value.to_ne_bytes());
    }
    attr(&mut body, libc::RTA_METRICS, &nested);
    let mut msg = Vec::with_capacity(16 + body.len());
    msg.extend_from_slice(&((16 + body.len()) as u32).to_ne_bytes());
    msg.extend_from_slice(&libc::RTM_NEWROUTE.to_ne_bytes());
    msg.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK | NLM_F_REPLACE | NLM_F_CREATE).to_ne_bytes());
    msg.extend_from_slice(&1u32.to_ne_bytes()); // sequence number
    msg.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel fills it
    msg.extend_from_slice(&body);
    msg
}

/// Send `replace_message` in the calling thread's namespace and wait for its answer.
pub fn set_metrics(net: [u8; 4], prefix: u8, device: &str, src: [u8; 4], metrics: &[(u16, u32)]) -> io::Result<()> {
    let name = std::ffi::CString::new(device).map_err(|_| io::Error::other("device name with NUL"))?;
    // SAFETY: a NUL-terminated name.
    let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
    if ifindex == 0 {
        return Err(io::Error::other(format!("no interface {device}")));
    }
    // SAFETY: plain socket creation; owned at once.
    let fd = cvt(unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_ROUTE) }, "netlink socket")?;
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let msg = replace_message(net, prefix, ifindex, src, metrics);
    // SAFETY: an all-zero sockaddr_nl (the kernel, port 0) of its size; msg is valid.
    let mut kernel: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    let sent = unsafe { libc::sendto(fd.as_raw_fd(), msg.as_ptr().cast(), msg.len(), 0, (&kernel as *const libc::sockaddr_nl).cast(), std::mem::size_of::<libc::sockaddr_nl>() as u32) };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut buf = [0u8; 1024];
    // SAFETY: buf is a valid writable buffer of its length.
    let n = unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n < 20 {
        return Err(io::Error::other("rtnetlink: no answer to the route replacement"));
    }
    // The answer is NLMSG_ERROR with error 0 (an acknowledgement) or -errno.
    let kind = u16::from_ne_bytes([buf[4], buf[5]]);
    let error = i32::from_ne_bytes([buf[16], buf[17], buf[18], buf[19]]);
    if kind != libc::NLMSG_ERROR as u16 || error != 0 {
        return Err(io::Error::other(format!("rtnetlink refused the route with metrics {metrics:?}: {}", io::Error::from_raw_os_error(-error))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_is_what_ip_route_replace_sends() {
        let m = replace_message([10, 77, 0, 0], 16, 3, [10, 77, 0, 1], &[(RTAX_INITCWND, 4)]);
        // Header 16 + rtmsg 12 + DST 8 + OIF 8 + PREFSRC 8 + METRICS (4 + 8) = 64.
        assert_eq!(m.len(), 64);
        assert_eq!(u32::from_ne_bytes(m[0..4].try_into().unwrap()), 64);
        assert_eq!(u16::from_ne_bytes(m[4..6].try_into().unwrap()), 24); // RTM_NEWROUTE
        assert_eq!(&m[16..24], &[2, 16, 0, 0, 254, 2, 253, 1]);
        assert_eq!(u16::from_ne_bytes(m[28..30].try_into().unwrap()), 8);
        assert_eq!(u16::from_ne_bytes(m[30..32].try_into().unwrap()), RTA_DST);
        assert_eq!(&m[32..36], &[10, 77, 0, 0]);
        assert_eq!(u16::from_ne_bytes(m[54..56].try_into().unwrap()), 8); // RTA_METRICS
        assert_eq!(u16::from_ne_bytes(m[58..60].try_into().unwrap()), RTAX_INITCWND);
        assert_eq!(u32::from_ne_bytes(m[60..64].try_into().unwrap()), 4);
    }
}
