// SPDX-License-Identifier: GPL-2.0
// wtcp_aimd: a congestion control of your own in the kernel, as a BPF struct_ops
// program, for wtcp's linux engine (`cc = "kernel:wtcp_aimd"`; docs/linux-engine.md).
// Linux's Reno growth (tcp_reno_cong_avoid: slow start, then one segment per window of
// acknowledged segments, by tcp_slow_start and tcp_cong_avoid_ai, which the kernel
// exports to BPF as kfuncs, while the window limits the sender), and on a loss
// ssthresh = max(0.8 cwnd, 2): gentler than Reno (1/2) and CUBIC (0.7), so that a
// trace tells which of the three ran. Build and register:
//   make -C examples/bpf && bpftool struct_ops register examples/bpf/wtcp_aimd.bpf.o
// and remove it with `bpftool struct_ops unregister name wtcp_aimd`.
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

// The name it registers under (tcp_available_congestion_control); `make NAME=...`.
#ifndef WTCP_CC_NAME
#define WTCP_CC_NAME "wtcp_aimd"
#endif

// The decrease factor: ssthresh = cwnd * BETA_NUM / BETA_DEN on a loss.
#define BETA_NUM 4
#define BETA_DEN 5

extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;

static struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

// Grow only while the window limits the sender (include/net/tcp.h tcp_is_cwnd_limited,
// Linux 6.4 and later, which BPF cannot call): when the kernel marked the last window
// cwnd-limited, or in slow start while cwnd < 2 x the most packets out in it.
static bool cwnd_limited(const struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

SEC("struct_ops")
void BPF_PROG(wtcp_aimd_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(wtcp_aimd_ssthresh, struct sock *sk)
{
	__u32 w = tcp_sk(sk)->snd_cwnd * BETA_NUM / BETA_DEN;

	return w > 2 ? w : 2;
}

// Undo a reduction found spurious (D-SACK, timestamps): back to the window before it.
SEC("struct_ops")
__u32 BPF_PROG(wtcp_aimd_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops wtcp_aimd = {
	.cong_avoid = (void *)wtcp_aimd_cong_avoid,
	.ssthresh = (void *)wtcp_aimd_ssthresh,
	.undo_cwnd = (void *)wtcp_aimd_undo_cwnd,
	.name = WTCP_CC_NAME,
};
