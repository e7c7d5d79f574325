/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ISPOT: the only ABI between ispot.ko and user space.
 *
 * Versioning rules are in Documentation/abi.rst.  In short: a change that an
 * older ispotctl would misread bumps ISPOT_ABI_MAJOR; an addition that an
 * older ispotctl can ignore (a new command, a new record kind, a meaning for
 * a reserved field) bumps ISPOT_ABI_MINOR.  Retired command numbers and
 * record kinds are never reused.
 *
 * All structures use fixed-size types, explicit reserved fields (which the
 * module rejects when non-zero) and __u64 for user pointers.
 */
#ifndef _UAPI_LINUX_ISPOT_H
#define _UAPI_LINUX_ISPOT_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define ISPOT_ABI_MAJOR		1
#define ISPOT_ABI_MINOR		10

#define ISPOT_DEVICE_NAME	"ispot"
#define ISPOT_IOC_MAGIC		'J'

/* ISPOT_IOC_GET_VERSION: handshake, allowed in every session state. */
struct ispot_version {
	__u32 abi_major;	/* out */
	__u32 abi_minor;	/* out */
	__u32 flags;		/* in: must be 0 */
	__u32 reserved;		/* in: must be 0 */
	char module_version[32];	/* out: NUL-terminated */
};

/*
 * ISPOT_IOC_SETUP: choose the target and allocate the per-CPU rings.
 * Allowed once, in the NEW state.  The target is a thread group; threads it
 * creates later are traced, and so is the image it execs into (this is how
 * `ispotctl run` arms probes before the first instruction of a command).
 */
/*
 * ispot_setup.flags (ABI 1.2).  Both cover the target's threads only; other
 * processes pay one lookup per event and are never recorded.
 *
 * ISPOT_SETUP_TASKS: TASK_NEW when the target creates a thread, TASK_EXIT
 * when one of its threads exits, so lifetimes are exact.
 * ISPOT_SETUP_WAITS: SWITCH_OUT/SWITCH_IN at every context switch of a
 * target thread, and FUTEX_ENTER/FUTEX_EXIT around its futex syscalls.
 */
/*
 * ISPOT_SETUP_OFFCPU (ABI 1.8; needs TASKS and WAITS): OFF_STACK records,
 * the user stack of a target thread as it leaves its CPU, sampled in time:
 * about one per offcpu_period_us (0: 10 ms) of each thread's off-CPU
 * time, whatever its number of switches.  offcpu_period_us must be 0
 * without the flag; with it, 0 or from ISPOT_OFFCPU_MIN_PERIOD_US (a
 * stack costs a walk and a copy with interrupts off) to
 * ISPOT_OFFCPU_MAX_PERIOD_US.  Such a
 * session may be enabled with no probe: a wall-clock profile of the
 * target (where its threads wait), before any function is chosen.
 *
 * ISPOT_SETUP_LOST (ABI 1.9): LOST records (ISPOT_REC_LOST), which say
 * where in a ring's stream records were dropped because it was full, when
 * and whose: a reader that pairs entries with exits must not pair across
 * them.  Opt-in, so that a reader of ABI 1.8 or older never sees one.
 */
#define ISPOT_SETUP_TASKS	(1U << 0)
#define ISPOT_SETUP_WAITS	(1U << 1)
#define ISPOT_SETUP_OFFCPU	(1U << 2)
#define ISPOT_SETUP_LOST	(1U << 3)
#define ISPOT_SETUP_FLAGS	(ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS | \
				 ISPOT_SETUP_OFFCPU | ISPOT_SETUP_LOST)
#define ISPOT_OFFCPU_MIN_PERIOD_US	100
#define ISPOT_OFFCPU_MAX_PERIOD_US	10000000

struct ispot_setup {
	__u32 pid;		/* in: tgid of the process to trace */
	__u32 ring_pages;	/* in: data pages per CPU, power of two */
	__u32 watermark;	/* in: wake poll() at this many bytes, 0 = half */
	__u32 stack_period;	/* in: call stack every N entries, 0 = 10000 */
	__u32 flags;		/* in: ISPOT_SETUP_*, others must be 0 */
	__u32 nr_rings;		/* out: rings to map, one per possible CPU */
	__u64 ring_mmap_size;	/* out: bytes to map per ring */
	__u32 offcpu_period_us;	/* in (ABI 1.8): see ISPOT_SETUP_OFFCPU */
	__u32 reserved32;	/* in: must be 0 */
	__u64 reserved[3];	/* in: must be 0 */
};

/*
 * Probe kinds, for ispot_probe_add.flags.  At least one of ENTRY and
 * RETURN must be set; RETURN also arms a uretprobe.
 *
 * ISPOT_PROBE_COUNT_ONLY (ABI 1.1): count hits in the probe stats
 * (entry_hits, and return_hits when RETURN is set), write no record.  It
 * makes a cheap call counter, and measures what a probe costs before
 * anything is recorded.  sample_period is ignored.  Only valid together
 * with ENTRY and/or RETURN.
 */
#define ISPOT_PROBE_ENTRY	(1U << 0)
#define ISPOT_PROBE_RETURN	(1U << 1)
#define ISPOT_PROBE_COUNT_ONLY	(1U << 2)
/*
 * ISPOT_PROBE_NO_CALLSITE (ABI 1.2): do not read the return address at
 * entry; ENTRY records carry ip 0.  With RETURN set, nothing is lost: the
 * EXIT record's ip is that same address, and the uretprobe reads it anyway,
 * so reading it twice is pure cost (a user stack access per call).
 */
#define ISPOT_PROBE_NO_CALLSITE	(1U << 3)
#define ISPOT_PROBE_BOTH	(ISPOT_PROBE_ENTRY | ISPOT_PROBE_RETURN)

/*
 * ISPOT_IOC_PROBE_ADD: probe a function of the target object, given as an
 * open fd (fd >= 0) or as a path (fd == -1, path is a user pointer to a
 * NUL-terminated string).  The offset is a file offset into an executable
 * PT_LOAD segment.  Allowed in the READY state (after SETUP, before ENABLE).
 *
 * ref_ctr_offset (ABI 1.5) is the file offset of a USDT semaphore: an
 * unsigned short in a writable PT_LOAD segment, inside its file-backed part,
 * 2-byte aligned.  While the probe is armed in a process, the kernel keeps
 * that process's copy incremented (uprobe_register_refctr()), so a program
 * can skip work that only a traced marker needs.  0 means no semaphore.
 */
struct ispot_probe_add {
	__s32 fd;		/* in */
	__u32 flags;		/* in: ISPOT_PROBE_* */
	__u64 path;		/* in: user pointer when fd == -1, else 0 */
	__u64 offset;		/* in: file offset of the function */
	__u32 sample_period;	/* in: record 1 in N hits, 0 or 1 = all */
	__u32 probe_id;		/* out: assigned by the module, from 1 */
	__u64 ref_ctr_offset;	/* in (ABI 1.5): semaphore, 0 = none */
	__u64 reserved;		/* in: must be 0 */
};

/* ISPOT_IOC_PROBE_REMOVE: allowed when not ENABLED. */
struct ispot_probe_remove {
	__u32 probe_id;		/* in */
	__u32 reserved;		/* in: must be 0 */
};

/*
 * ISPOT_IOC_RING_CONSUME: the reader has consumed every record before
 * @tail in ring @cpu.  The module checks that tail lies between the current
 * tail and head, so a buggy reader cannot make the counts lie.
 */
struct ispot_ring_consume {
	__u32 cpu;		/* in */
	__u32 reserved;		/* in: must be 0 */
	__u64 tail;		/* in: new tail, in slots */
};

struct ispot_ring_stats {
	__u64 produced;		/* records written or dropped on this CPU,
				 * LOST records among them */
	__u64 consumed;		/* records released by RING_CONSUME */
	__u64 dropped;		/* records lost because the ring was full */
};

struct ispot_probe_stats {
	__u32 probe_id;
	__u32 reserved;
	__u64 entry_hits;	/* handler calls in the target */
	__u64 return_hits;
	__u64 filtered;		/* hits in other processes, not recorded */
};

/*
 * ISPOT_IOC_STATS: copy out per-CPU ring counts and per-probe hit counts.
 * nr_rings/nr_probes are capacities on input and counts on output; the
 * arrays are filled up to the smaller of the two.
 */
struct ispot_stats {
	__u64 rings;		/* in: user pointer to ispot_ring_stats[] */
	__u64 probes;		/* in: user pointer to ispot_probe_stats[] */
	__u32 nr_rings;		/* in/out */
	__u32 nr_probes;	/* in/out */
	__u32 state;		/* out: ISPOT_STATE_* */
	__u32 stop_reason;	/* in: must be 0; out (ABI 1.4): why a DEAD
				 * session stopped, ISPOT_STOP_* */
};

/*
 * Why a session is DEAD (ABI 1.4).  ISPOT_STOP_SECURE_EXEC: the target
 * executed a set-user-ID, set-group-ID or file-capability program, which
 * leaves it not dumpable; like perf, which tears down a task's events then,
 * the module stops recording it at that exec, whoever the tracer is.
 */
enum ispot_stop_reason {
	ISPOT_STOP_NONE = 0,	/* still tracing, or DISABLEd by the reader */
	ISPOT_STOP_EXITED,	/* every thread of the target has exited */
	ISPOT_STOP_SECURE_EXEC,	/* the target exec'd a privileged program */
};

/*
 * ISPOT_IOC_INFO: module-wide figures for `ispotctl status`.  Allowed in
 * every session state.
 */
struct ispot_info {
	__u32 sessions;		/* out: open sessions, this one included */
	__u32 max_sessions;	/* out */
	__u32 max_probes;	/* out: per session */
	__u32 nr_cpus;		/* out: possible CPUs, one ring each */
	__u64 ring_bytes;	/* out: ring memory in use, all sessions */
	__u64 ring_bytes_max;	/* out */
	__u64 dropped;		/* out: records dropped since load */
	__u32 tracepoints;	/* in: must be 0; out (ABI 1.4): the
				 * ISPOT_SETUP_* groups whose tracepoint
				 * probes are registered now (each costs
				 * every process on the host a little) */
	__u32 reserved32;	/* in: must be 0 */
	__u64 reserved[3];	/* in: must be 0 */
};

/*
 * ISPOT_IOC_COUNTERS (ABI 1.3): count perf events around every probed call.
 * The module creates one pinned kernel counter per event and online CPU,
 * counting user and kernel mode, and reads the local one in the entry and
 * return handlers.  Allowed once, in the READY state; every spec gets its
 * own result, so an event the machine lacks (no PMU) is reported and the
 * others still count.  With ISPOT_COUNTERS_TRY the counters are created and
 * released at once, in any state: this is how `ispotctl status` asks which
 * events the machine supports.
 */
#define ISPOT_MAX_COUNTERS	6
#define ISPOT_COUNTERS_TRY	(1U << 0)

struct ispot_counter_spec {
	__u32 type;		/* in: PERF_TYPE_HARDWARE, _SOFTWARE,
				 * _HW_CACHE or _RAW */
	__s32 result;		/* out: 0, or -errno: -ENOENT/-EOPNOTSUPP
				 * mean no such event or no PMU */
	__u64 config;		/* in: as perf_event_attr.config */
	__u64 reserved;		/* in: must be 0 */
};

struct ispot_counters {
	__u32 nr;		/* in: 1 to ISPOT_MAX_COUNTERS */
	__u32 flags;		/* in: ISPOT_COUNTERS_TRY or 0 */
	__u64 reserved[2];	/* in: must be 0 */
	struct ispot_counter_spec spec[ISPOT_MAX_COUNTERS];
};

/*
 * ISPOT_IOC_SOLO (ABI 1.6): start or end a *solo block*.  While a block is
 * on, at most one thread of the target is inside the functions probed with
 * ISPOT_PROBE_RETURN (and without COUNT_ONLY): the *gate*.  A thread that
 * reaches such an entry while another holds the gate waits there, before
 * its ENTRY is timestamped (bounded, below); the holder's nested calls
 * pass.  The holder keeps the gate until its outermost gated call
 * returns, even past the block's end, so that a block's last call runs
 * alone too.  A wait that times out lets its thread pass and opens the gate
 * to everyone until the block ends (the block is *contaminated*).
 *
 * duration_ns > 0 starts a block that admits holders for that long
 * (at most ISPOT_SOLO_MAX_NS), with waits of at most wait_max_ns (1 us to
 * ISPOT_SOLO_WAIT_MAX_NS); -EBUSY if one is on.  duration_ns == 0 ends the
 * current block early (wait_max_ns must be 0); a block that has already
 * ended is not an error.  Allowed in the ENABLED state.  @block is the
 * block's number, from 1 (out).  Blocks need ISPOT_SETUP_TASKS (the exit
 * of a holder lets the gate go): -EOPNOTSUPP without.  Since ABI 1.7 the
 * first thread to enter a gated function in a block holds the gate
 * between its calls until the block's admission ends: a block's calls are
 * one thread's, as in a run of that thread alone; other threads wait
 * until then, unless the holder exits or waits in a futex.  A wait times
 * out when the holder stays inside one call for wait_max_ns; a holder
 * that stays between calls that long is done, and a waiter opens the gate
 * for the rest of the block (no timeout).  After a block's END, a holder
 * left inside a call is waited for wait_max_ns at most, once.  No wait
 * lasts past the end of the block it began in plus 2 * wait_max_ns, even
 * when the next block starts at once: one still waiting then in a later
 * block passes beside that block's holder (GATE LATE | BESIDE).
 * Documentation/solo-blocks.rst has the method.
 */
#define ISPOT_SOLO_MAX_NS	1000000000ULL
#define ISPOT_SOLO_WAIT_MAX_NS	100000000ULL

struct ispot_solo {
	__u64 duration_ns;	/* in */
	__u64 wait_max_ns;	/* in */
	__u32 flags;		/* in: must be 0 */
	__u32 block;		/* out */
	__u64 reserved[2];	/* in: must be 0 */
};

/* SOLO_END's data[1]. */
#define ISPOT_SOLO_CONTAMINATED	(1U << 0)	/* a gate wait timed out */
#define ISPOT_SOLO_STOPPED	(1U << 1)	/* ended by DISABLE or close */

/*
 * GATE's data[2]: how a call went through the gate.  ADMITTED: it took
 * the gate in a block (its ENTRY is a solo call); NESTED: the holder's
 * nested call; WAITED: it waited (data[1] ns) for the holder; TIMEOUT: the
 * wait timed out and it passed ungated; OPEN: the gate was open (the block
 * contaminated or stopped) when it came or while it waited; LATE: it
 * waited for a holder whose block had ended, and passed ungated; INSIDE:
 * its thread was inside a call it entered before (a return probe
 * pending), which may hold what the holder waits for, so it passed;
 * BESIDE: the holder waited in a futex (ISPOT_SETUP_WAITS tells), maybe
 * for a lock this thread holds, so it passed ungated (ip: the holder's
 * tid, whose call did not run alone to its end); with LATE, either the
 * holder of a block that had ended stayed inside one call for
 * wait_max_ns, and the wait freed the gate and passed beside that call,
 * or the wait reached its bound (the end of the block it began in plus
 * 2 * wait_max_ns) in a later block, and passed beside that block's
 * holder (ip), whose current or next call is no solo call, changing
 * nothing else.  TAKEN (ABI 1.7), with
 * ADMITTED: the call took a free gate, the first of its holder's calls in
 * the block, which follows other threads' work on whatever they share.
 */
#define ISPOT_GATE_ADMITTED	(1U << 0)
#define ISPOT_GATE_NESTED	(1U << 1)
#define ISPOT_GATE_WAITED	(1U << 2)
#define ISPOT_GATE_TIMEOUT	(1U << 3)
#define ISPOT_GATE_OPEN		(1U << 4)
#define ISPOT_GATE_LATE		(1U << 5)
#define ISPOT_GATE_INSIDE	(1U << 6)
#define ISPOT_GATE_BESIDE	(1U << 7)
#define ISPOT_GATE_TAKEN	(1U << 8)

enum ispot_session_state {
	ISPOT_STATE_NEW = 0,	/* opened, no target yet */
	ISPOT_STATE_READY,	/* target and rings set, probes may be added */
	ISPOT_STATE_ENABLED,	/* probes armed */
	ISPOT_STATE_DEAD,	/* the target exited; drain, then close */
};

#define ISPOT_IOC_GET_VERSION	_IOWR(ISPOT_IOC_MAGIC, 0x00, struct ispot_version)
#define ISPOT_IOC_SETUP		_IOWR(ISPOT_IOC_MAGIC, 0x01, struct ispot_setup)
#define ISPOT_IOC_PROBE_ADD	_IOWR(ISPOT_IOC_MAGIC, 0x02, struct ispot_probe_add)
#define ISPOT_IOC_PROBE_REMOVE	_IOW(ISPOT_IOC_MAGIC, 0x03, struct ispot_probe_remove)
#define ISPOT_IOC_ENABLE	_IO(ISPOT_IOC_MAGIC, 0x04)
#define ISPOT_IOC_DISABLE	_IO(ISPOT_IOC_MAGIC, 0x05)
#define ISPOT_IOC_RING_CONSUME	_IOW(ISPOT_IOC_MAGIC, 0x06, struct ispot_ring_consume)
#define ISPOT_IOC_STATS		_IOWR(ISPOT_IOC_MAGIC, 0x07, struct ispot_stats)
#define ISPOT_IOC_INFO		_IOWR(ISPOT_IOC_MAGIC, 0x08, struct ispot_info)
#define ISPOT_IOC_COUNTERS	_IOWR(ISPOT_IOC_MAGIC, 0x09, struct ispot_counters)
#define ISPOT_IOC_SOLO		_IOWR(ISPOT_IOC_MAGIC, 0x0a, struct ispot_solo)

/*
 * Ring layout.  Each ring is mapped read-only at offset
 * cpu * ring_mmap_size: one control page, then the data pages, which hold
 * an array of 64-byte slots.  A record occupies one or more consecutive
 * slots (index & (nr_slots - 1)); head and tail count slots and never wrap.
 */
#define ISPOT_SLOT_SIZE		64

struct ispot_ring_ctrl {
	__u64 head;		/* producer position, published with release */
	__u64 tail;		/* consumer position accepted by the module */
	__u64 dropped;		/* records lost because the ring was full */
	__u32 nr_slots;		/* power of two */
	__u32 cpu;
	__u64 data_offset;	/* bytes from the mapping start to slot 0 */
};

/*
 * Kinds 4-9 (ABI 1.2) carry probe_id 0; tid is the thread concerned, which
 * is current except for SWITCH_IN (the thread switched to) and TASK_NEW
 * (the new thread).  sp and ip are 0 unless stated.
 *
 * Futex calls are futex(2) from 64-bit callers, and futex_waitv(2) and
 * futex_wait(2) where the kernel has them; FUTEX_ENTER gives those the
 * futex(2) op that does the same: FUTEX_WAIT on the first waiter's uaddr
 * and val for futex_waitv, FUTEX_WAIT_BITSET for futex_wait, each with
 * FUTEX_PRIVATE_FLAG if the call asked for a private futex.  FUTEX_EXIT's
 * value is the raw return (-errno as a 64-bit two's complement).
 * TASK_EXIT's data[0] is 1 in at most one record per session, for the
 * thread whose exit ended the group (Documentation/abi.rst); from ABI 1.10
 * data[1] and data[2] hold its comm as it exits, up to 15 bytes, the rest
 * NUL, in memory order (little-endian: byte i in bits 8 * (i % 8) of
 * data[1 + i / 8]; 0: no name): a thread gone before the reader could
 * name it is named.
 */
enum ispot_record_kind {
	ISPOT_REC_ENTRY = 1,	/* ip: call site (return address) */
	ISPOT_REC_EXIT = 2,	/* ip: where the function returned to */
	ISPOT_REC_STACK = 3,	/* data[0]: frames; frames follow in slots */
	ISPOT_REC_SWITCH_OUT = 4,	/* data[0]: 1 if still runnable
					 * (preempted), 0 if it blocked;
					 * data[1]: prev_state */
	ISPOT_REC_SWITCH_IN = 5,
	ISPOT_REC_FUTEX_ENTER = 6,	/* data[0]: uaddr, data[1]: op,
					 * data[2]: val; ip: user ip */
	ISPOT_REC_FUTEX_EXIT = 7,	/* data[0]: return value */
	ISPOT_REC_TASK_NEW = 8,		/* data[0]: tid of the creator */
	ISPOT_REC_TASK_EXIT = 9,	/* data[0]: 1 if the last thread,
					 * data[1..2]: comm (ABI 1.10) */
	/*
	 * Kinds 10-12 (ABI 1.6): solo blocks (ISPOT_IOC_SOLO).  SOLO_BEGIN
	 * and SOLO_END have tid 0 and the target's tgid; data[0] is the
	 * block's number.  SOLO_BEGIN: data[1] the time its admission ends,
	 * data[2] wait_max_ns.  SOLO_END, written when the reader ends the
	 * block or the session stops: data[1] ISPOT_SOLO_* flags, data[2]
	 * the gate waits that timed out; admission ended at the earlier of
	 * its ts_ns and SOLO_BEGIN's data[1].  GATE precedes, on the same
	 * thread, the ENTRY (if recorded) of a call that met the gate:
	 * probe_id and sp are that call's; data[0] the block, data[1] the ns
	 * it waited, data[2] ISPOT_GATE_* flags; ip, with TIMEOUT or BESIDE,
	 * the tid of the holder whose call it displaced (not alone to its
	 * end), else 0.
	 */
	ISPOT_REC_SOLO_BEGIN = 10,
	ISPOT_REC_SOLO_END = 11,
	ISPOT_REC_GATE = 12,
	/*
	 * Kind 13 (ABI 1.8, ISPOT_SETUP_OFFCPU): OFF_STACK, written as a
	 * target thread leaves its CPU, just before its SWITCH_OUT (same
	 * ts_ns); the off-CPU time it stands for ends at the thread's next
	 * SWITCH_IN.  ip and sp: the user registers then (ip is where the
	 * thread entered the kernel: a system call's or an interrupted
	 * instruction's address).  data[0]: frames (low 16 bits) and stack
	 * words (bits 16-31) that follow in slots, frames first: the frame
	 * pointer walk from the user bp (its first frame is bp's return
	 * address; code built without frame pointers leaves it short or
	 * wrong), then, from the slot after the frames' last, the user
	 * stack's first words from sp, raw, for the reader to find return
	 * addresses in (a C library built without frame pointers hides its
	 * caller from the walk); as many as could be read, in whole slots,
	 * at most ISPOT_OFFCPU_MAX_WORDS.  data[1]: the
	 * sampling weight: this switch stands for data[1] of the thread's
	 * switches, so its off-CPU time counts data[1] times.  data[2]: 0.
	 */
	ISPOT_REC_OFF_STACK = 13,
	/*
	 * Kind 14 (ABI 1.9, ISPOT_SETUP_LOST): LOST, written on a ring just
	 * before the first record it takes after dropping some because it
	 * was full, in the same room.  ts_ns: the first dropped record's
	 * time; data[0]: the records dropped; data[1]: the last one's time;
	 * tid: the thread the first of them was about (as its tid would
	 * have read, in the reader's pid namespace), 0 if none was (a
	 * solo block's record); data[2]: ISPOT_LOST_SEVERAL if records of
	 * other threads were dropped too.  tgid, probe_id, sp and ip 0;
	 * cpu the ring's.  Counted in produced and consumed like any
	 * record.  Drops after a ring's last record, or pending at DISABLE
	 * and never followed by a record, are counted by ISPOT_IOC_STATS
	 * only.
	 */
	ISPOT_REC_LOST = 14,
};

/* LOST's data[2]: the records dropped were about more than one thread. */
#define ISPOT_LOST_SEVERAL	(1ULL << 0)

/*
 * One slot.  @sp is the user stack pointer: at ENTRY it points at the return
 * address; at EXIT the return address has been popped, so an exit pairs
 * with the entry whose sp is 8 bytes lower.  This stays exact when the
 * kernel skips uretprobes (deep recursion) or a longjmp skips returns.
 *
 * @data: ENTRY: the first three arguments.  EXIT: data[0] is the return
 * value, data[1] the virtual address the probe's file offset is mapped at
 * in that process (where the entry was hit: the function's address, since
 * the offset is its first instruction; it changes on exec or remap),
 * data[2] 0.  STACK: data[0] is the number of frames that follow, data[1]
 * and data[2] 0.  Documentation/abi.rst has every kind.
 */
struct ispot_record {
	__u64 ts_ns;		/* CLOCK_MONOTONIC, comparable across CPUs */
	__u32 tid;
	__u32 tgid;
	__u32 probe_id;
	__u16 cpu;
	__u8 kind;		/* ISPOT_REC_* */
	__u8 nslots;		/* slots this record occupies, >= 1 */
	__u64 sp;
	__u64 ip;
	__u64 data[3];		/* per kind: see above */
};

/*
 * With counters (ABI 1.3), ENTRY and EXIT records take two slots; the second
 * is this.  Bit i of @valid says value[i] was read from an active counter
 * of spec i on this CPU.  A call's delta (EXIT minus ENTRY) is only
 * meaningful when both are valid, both records have the same cpu and the
 * same @switches: the counters are per CPU, so they count whatever else
 * ran there while the thread was switched out or elsewhere.
 */
struct ispot_counter_values {
	__u64 switches;		/* the thread's context switches so far
				 * (voluntary + involuntary) */
	__u32 nr;		/* specs configured */
	__u32 valid;		/* bit i: value[i] is valid */
	__u64 value[ISPOT_MAX_COUNTERS];
};

/* A STACK record is followed by ceil(frames / 8) slots of __u64 frames. */
#define ISPOT_STACK_MAX_FRAMES	32
/* OFF_STACK's raw words of the user stack, at most. */
#define ISPOT_OFFCPU_MAX_WORDS	64

#endif /* _UAPI_LINUX_ISPOT_H */
