//! Network namespaces and TUN devices, held by file descriptors only.
//!
//! A namespace is made by a thread that calls `unshare(CLONE_NEWNET)` and opens its own
//! `/proc/thread-self/ns/net`; it is never bind-mounted under `/run/netns`, so nothing of
//! it is visible to `ip netns` or left on the host: the kernel destroys it, with its TUN
//! device and sockets, when the last descriptor closes, which is also what happens when the
//! process is killed (SIGKILL included). Everything here runs inside the namespace: its
//! sysctls (`/proc/sys/net` shows the calling thread's namespace), its interfaces, its
//! sockets. The host's routes, sysctls and interfaces are never touched.

use std::ffi::CString;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::thread;

/// Name of the TUN device in every namespace (a namespace has its own device names).
pub const TUN_NAME: &str = "wtcp0";
/// Packets the TUN device's ring holds before it drops.
const TUN_TXQUEUELEN: libc::c_int = 10_000;

/// A network namespace of this process's own, alive while this value is.
#[derive(Debug)]
pub struct Netns {
    fd: OwnedFd,
}

/// A system call's result as an `io::Result`, its error prefixed with `what`.
pub(crate) fn cvt(r: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if r < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(r)
    }
}

impl Netns {
    /// A new, empty namespace (needs CAP_SYS_ADMIN).
    pub fn new() -> io::Result<Netns> {
        thread::spawn(|| {
            // SAFETY: unshare affects this short-lived thread only.
            cvt(unsafe { libc::unshare(libc::CLONE_NEWNET) }, "unshare(CLONE_NEWNET)")?;
            let f = File::open("/proc/thread-self/ns/net")?;
            Ok(Netns { fd: OwnedFd::from(f) })
        })
        .join()
        .map_err(|_| io::Error::other("namespace thread panicked"))?
    }

    /// Move the calling thread into this namespace (for good: call it on a thread made for
    /// the namespace, see [`Netns::run`]).
    pub fn enter(&self) -> io::Result<()> {
        // SAFETY: setns on a valid namespace descriptor changes this thread only.
        cvt(unsafe { libc::setns(self.fd.as_raw_fd(), libc::CLONE_NEWNET) }, "setns")?;
        Ok(())
    }

    /// Run `f` on a fresh thread inside this namespace and wait for it.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
        thread::scope(|s| {
            s.spawn(|| {
                self.enter()?;
                f()
            })
            .join()
            .map_err(|_| io::Error::other("namespace thread panicked"))?
        })
    }
}

/// Write a sysctl of the calling thread's namespace, e.g. `("net/ipv4/tcp_sack", "1")`.
pub fn sysctl(path: &str, value: &str) -> io::Result<()> {
    let full = format!("/proc/sys/{path}");
    let mut f = File::options().write(true).open(&full).map_err(|e| io::Error::new(e.kind(), format!("{full}: {e}")))?;
    f.write_all(value.as_bytes()).map_err(|e| io::Error::new(e.kind(), format!("{full} = {value}: {e}")))
}

/// Packets the calling thread's namespace's TUN device dropped on sending (its ring was
/// full): `/proc/net/dev`'s tx "drop" column.
pub fn tun_tx_dropped() -> io::Result<u64> {
    let text = read_net_file("dev")?;
    let line = text.lines().find(|l| l.trim_start().starts_with(&format!("{TUN_NAME}:"))).ok_or_else(|| io::Error::other("no TUN device in /proc/net/dev"))?;
    let fields: Vec<&str> = line.split_once(':').map_or("", |(_, v)| v).split_whitespace().collect();
    // rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes packets errs drop ...
    fields.get(11).and_then(|v| v.parse().ok()).ok_or_else(|| io::Error::other("unreadable /proc/net/dev line"))
}

/// Read a file of the calling thread's namespace (`/proc/thread-self/net/...`).
pub fn read_net_file(name: &str) -> io::Result<String> {
    std::fs::read_to_string(format!("/proc/thread-self/net/{name}"))
}

fn ifreq(name: &str) -> libc::ifreq {
    // SAFETY: ifreq is plain data; all-zero is a valid value.
    let mut r: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in r.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    r
}

fn sockaddr_in(addr: [u8; 4]) -> libc::sockaddr {
    let sin = libc::sockaddr_in { sin_family: libc::AF_INET as libc::sa_family_t, sin_port: 0, sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes(addr) }, sin_zero: [0; 8] };
    // SAFETY: sockaddr_in and sockaddr have the same size; this is how the ioctls take it.
    unsafe { std::mem::transmute::<libc::sockaddr_in, libc::sockaddr>(sin) }
}

/// In the calling thread's namespace: a TUN device [`TUN_NAME`] (IP packets, no packet
/// information header) with address `addr`/`prefix`, MTU `mtu`, up, and `lo` up. The
/// kernel adds the connected route, so every address of the prefix leaves through the
/// device. Returns the device's descriptor, non-blocking.
pub fn tun_device(addr: [u8; 4], prefix: u8, mtu: u32) -> io::Result<OwnedFd> {
    // No IPv6 on the new device (its router solicitations would cross the relay); a kernel
    // without IPv6 has no such sysctl, which is as good.
    for scope in ["all", "default"] {
        let _ = sysctl(&format!("net/ipv6/conf/{scope}/disable_ipv6"), "1");
    }
    let path = CString::new("/dev/net/tun").expect("no NUL");
    // SAFETY: plain open of a character device.
    let fd = cvt(unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) }, "open /dev/net/tun")?;
    // SAFETY: fd was just opened and is owned here.
    let tun = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req = ifreq(TUN_NAME);
    req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: TUNSETIFF takes a pointer to an ifreq.
    cvt(unsafe { libc::ioctl(tun.as_raw_fd(), libc::TUNSETIFF, &mut req) }, "TUNSETIFF")?;
    let ctl = control_socket()?;
    let mut r = ifreq(TUN_NAME);
    r.ifr_ifru.ifru_addr = sockaddr_in(addr);
    ioctl(&ctl, libc::SIOCSIFADDR, &mut r, "SIOCSIFADDR")?;
    let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(prefix)) };
    r.ifr_ifru.ifru_netmask = sockaddr_in(mask.to_be_bytes());
    ioctl(&ctl, libc::SIOCSIFNETMASK, &mut r, "SIOCSIFNETMASK")?;
    r.ifr_ifru.ifru_mtu = mtu as libc::c_int;
    ioctl(&ctl, libc::SIOCSIFMTU, &mut r, "SIOCSIFMTU")?;
    // The device's ring (txqueuelen, 500 by default) drops what the relay has not read
    // yet, outside the emulated network; a deep one keeps the relay the only place of
    // loss (what it still drops is reported: `tun_tx_dropped`). ifr_qlen shares
    // ifru_metric's place in the union.
    r.ifr_ifru.ifru_metric = TUN_TXQUEUELEN;
    ioctl(&ctl, libc::SIOCSIFTXQLEN, &mut r, "SIOCSIFTXQLEN")?;
    for name in [TUN_NAME, "lo"] {
        let mut r = ifreq(name);
        r.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        ioctl(&ctl, libc::SIOCSIFFLAGS, &mut r, "SIOCSIFFLAGS")?;
    }
    Ok(tun)
}

fn control_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket creation.
    let fd = cvt(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) }, "socket")?;
    // SAFETY: fd was just created and is owned here.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn ioctl(fd: &OwnedFd, req: libc::c_ulong, r: &mut libc::ifreq, what: &str) -> io::Result<()> {
    // SAFETY: the SIOCSIF* requests take a pointer to an ifreq.
    cvt(unsafe { libc::ioctl(fd.as_raw_fd(), req as _, r as *mut libc::ifreq) }, what).map(|_| ())
}

/// Whether this process can make namespaces and TUN devices; the reason when not.
pub fn check_privileges() -> Result<(), String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("the linux engine needs root (network namespaces and TUN devices); run as root".into());
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Err("the linux engine needs /dev/net/tun (the tun module); it is missing".into());
    }
    let ns = Netns::new().map_err(|e| format!("the linux engine cannot make a network namespace ({e})"))?;
    ns.run(|| tun_device([10, 255, 0, 1], 24, 1500).map(|_| ())).map_err(|e| format!("the linux engine cannot make a TUN device in a namespace ({e})"))
}

/// Raw descriptor of an owned one (for poll and read/write loops).
pub fn raw(fd: &OwnedFd) -> RawFd {
    fd.as_raw_fd()
}
