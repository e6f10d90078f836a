//! The structs and counter slots that the host and the kernels share, declared once, here, in Rust.
//!
//! Each struct that crosses to the device is one `#[repr(C)]` Rust definition ([`device_struct!`])
//! from which the C declaration the kernels compile is generated: the same fields in the same order,
//! each with its C type, followed by `static_assert`s on every field's size and on the struct's size
//! (checked by NVRTC), and on every field's offset (checked by a host C++ compiler, as the kernel syntax
//! test runs one: NVRTC has no `offsetof`). A struct without padding is uploaded as it is
//! ([`DeviceStruct::as_bytes`], or as a typed buffer through cudarc's `DeviceRepr`). The counter slots
//! (the indices into the counters the kernels add to and the host reads) are declared here too
//! ([`counter_slots!`]) and their `#define`s generated; the constants that kernels/*.cu keep and the
//! host mirrors are checked by generated `static_assert`s ([`engine_footer`]).
//!
//! What each unit compiles: the engine's unit (`kernel_source`) puts [`engine_header`] between the
//! program's device code and kernels/state.cu and [`engine_footer`] at its end; the multi-source unit
//! starts with [`multi_source_header`], the sweeps' unit with [`sweep_header`] and the edge
//! computations' unit with [`intersect_header`], the strongly connected components' unit with
//! [`strong_header`], the BFS parent tree's unit with [`tree_header`].

use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::launch::{BLOCK, GRID_BARRIER_WORDS, ILP, TILE};

/// One field of a host-device struct: its name (the same on both sides), where the Rust definition
/// puts it, its C type and array length, and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Field {
    /// The field's name in Rust and in C.
    pub(crate) name: &'static str,
    /// Its byte offset in the Rust struct.
    pub(crate) offset: usize,
    /// Its size in bytes.
    pub(crate) size: usize,
    /// Its C type (of an element, for an array).
    pub(crate) c_type: &'static str,
    /// Its elements, for an array (`None`: a scalar or pointer).
    pub(crate) len: Option<usize>,
    /// Its documentation, as one line.
    pub(crate) doc: &'static str,
}

/// A field type of a host-device struct: a scalar (device addresses are `u64`) or an array of them.
pub(crate) trait FieldType {
    /// The array's length, for an array.
    const LEN: Option<usize>;
}

impl FieldType for u32 {
    const LEN: Option<usize> = None;
}

impl FieldType for u64 {
    const LEN: Option<usize> = None;
}

impl FieldType for f64 {
    const LEN: Option<usize> = None;
}

impl<T, const N: usize> FieldType for [T; N] {
    const LEN: Option<usize> = Some(N);
}

/// A struct the host hands to the kernels.
///
/// # Safety
/// Implemented by [`device_struct!`] only: the type is `#[repr(C)]`, has no padding (checked when it is
/// compiled), and its fields are integers, floats and arrays of them, for which every bit pattern is a
/// value.
pub(crate) unsafe trait DeviceStruct: Copy + 'static {
    /// The C name (`typedef struct { ... } NAME;`).
    const C_NAME: &'static str;
    /// What the struct holds, for the C declaration's comment.
    const DOC: &'static str;
    /// The fields, in order.
    const FIELDS: &'static [Field];
    /// A C field that follows the Rust struct's fields in the C declaration, as `(C type, name)`:
    /// `sx_state`'s `params`, the program's own struct, whose bytes the host appends.
    const TAIL: Option<(&'static str, &'static str)>;

    /// The struct's bytes, as the device reads them.
    fn as_bytes(&self) -> &[u8] {
        // SAFETY: the trait's contract: `Self` is `#[repr(C)]` without padding, so each of its
        // `size_of::<Self>()` bytes is an initialised byte of a field.
        unsafe { std::slice::from_raw_parts((self as *const Self).cast::<u8>(), std::mem::size_of::<Self>()) }
    }
}

/// Declares a host-device struct: `#[repr(C)]`, without padding (a compile-time check), a
/// [`DeviceStruct`] and a cudarc `DeviceRepr`/`ValidAsZeroBits`. Each field gives its C type after `as`;
/// `then "type" "name"` names the C tail ([`DeviceStruct::TAIL`]).
macro_rules! device_struct {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident as $c_name:literal $(then $tail_type:literal $tail_name:literal)? {
            $( $(#[doc = $fdoc:literal])* $field:ident: $ty:ty as $c_type:literal, )*
        }
    ) => {
        $(#[doc = $doc])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        $vis struct $name {
            $( $(#[doc = $fdoc])* pub(crate) $field: $ty, )*
        }

        const _: () = assert!(
            std::mem::size_of::<$name>() == 0 $(+ std::mem::size_of::<$ty>())*,
            concat!(stringify!($name), " has padding: make it an explicit field")
        );

        // SAFETY: `#[repr(C)]` with plain integer and float fields and no padding (checked above), as the
        // kernels declare it (generated from this definition).
        unsafe impl cudarc::driver::DeviceRepr for $name {}
        // SAFETY: every field is an integer, a float or an array of them, for which zero bits are a value.
        unsafe impl cudarc::driver::ValidAsZeroBits for $name {}

        // SAFETY: `#[repr(C)]`, no padding (checked above), integer and float fields only.
        unsafe impl $crate::device_structs::DeviceStruct for $name {
            const C_NAME: &'static str = $c_name;
            const DOC: &'static str = concat!($($doc),*);
            const FIELDS: &'static [$crate::device_structs::Field] = &[$(
                $crate::device_structs::Field {
                    name: stringify!($field),
                    offset: std::mem::offset_of!($name, $field),
                    size: std::mem::size_of::<$ty>(),
                    c_type: $c_type,
                    len: <$ty as $crate::device_structs::FieldType>::LEN,
                    doc: concat!($($fdoc),*),
                },
            )*];
            const TAIL: Option<(&'static str, &'static str)> = device_struct!(@tail $($tail_type $tail_name)?);
        }
    };
    (@tail) => { None };
    (@tail $t:literal $n:literal) => { Some(($t, $n)) };
}

/// Declares counter slots: a module of `usize` constants, each with the C name the generated
/// `#define` gives it, and `DEFINES`, the `(C name, value, doc)` of each.
macro_rules! counter_slots {
    (
        $(#[doc = $doc:literal])*
        $vis:vis mod $module:ident {
            $( $(#[doc = $sdoc:literal])* $slot:ident = $value:expr, as $c_name:literal; )*
        }
    ) => {
        $(#[doc = $doc])*
        $vis mod $module {
            $( $(#[doc = $sdoc])* #[allow(dead_code)] pub(crate) const $slot: usize = $value; )*
            /// The `#define`s of the slots: C name, value, what the slot counts.
            pub(crate) const DEFINES: &[(&str, usize, &str)] = &[$( ($c_name, $slot, concat!($($sdoc),*)), )*];
        }
    };
}

device_struct! {
    /// The run's state as every step kernel sees it (`sx_state`, kernels/state.cu), up to the
    /// program's parameters (`simdx_params`), whose bytes follow it.
    pub(crate) struct SxState as "sx_state" then "simdx_params" "params" {
        /// The out-CSR: offsets.
        out_offsets: u64 as "const simdx_u64*",
        /// The out-CSR: targets.
        out_targets: u64 as "const simdx_u32*",
        /// The out-arcs' weights (NULL: every arc weighs uniform_weight_bits).
        out_weights: u64 as "const simdx_weight*",
        /// The in-CSR: offsets.
        in_offsets: u64 as "const simdx_u64*",
        /// The in-CSR: targets.
        in_targets: u64 as "const simdx_u32*",
        /// The in-arcs' weights (NULL: uniform).
        in_weights: u64 as "const simdx_weight*",
        /// Each vertex's value.
        now: u64 as "simdx_value*",
        /// Each vertex's value at its last snapshot.
        seen: u64 as "simdx_value*",
        /// The combined updates (programs that do not apply in place; else NULL).
        acc: u64 as "simdx_value*",
        /// Nonzero: reached in this iteration (a byte a vertex, `n` rounded up to a whole word).
        touched: u64 as "unsigned char*",
        /// The iteration's stamp: an active source of this pull step.
        in_frontier: u64 as "simdx_u32*",
        /// Nonzero: active, waiting in a later bucket (a byte a vertex, `n` rounded up to a whole word).
        pending: u64 as "unsigned char*",
        /// The counters (counter_slots `step`).
        counters: u64 as "unsigned long long*",
        /// The source_value of each frontier vertex (programs that define it; else NULL).
        send: u64 as "simdx_msg*",
        /// The waiting (pending) vertices, each once; far[fcur] is current.
        far: [u64; 2] as "simdx_u32*",
        /// The lengths of far[0] and far[1], their bucket bounds, and the settle list's length (counter_slots `far`).
        far_len: u64 as "unsigned long long*",
        /// The seen value before this iteration's snapshot (programs that read it).
        sent: u64 as "simdx_value*",
        /// The tag (iteration + 1) of the last snapshot of each vertex.
        prepared: u64 as "simdx_u32*",
        /// Bit v: v's in_frontier stamp is the pull's (built before each stamped pull).
        frontier_bits: u64 as "simdx_u32*",
        /// SX_DEFERS: the vertices of the current bucket that may owe arcs, each once.
        settle: u64 as "simdx_u32*",
        /// SX_DEFERS: bucket + 1 while the vertex is in that bucket's settle list.
        settle_mark: u64 as "simdx_u32*",
        /// A share of a partitioned run: each vertex's out-degree in the whole graph, then each one's
        /// in-degree (2 n entries), which programs see instead of the share's; NULL: the CSRs' degrees.
        degrees: u64 as "const simdx_u32*",
        /// Each vertex's sender from level-synchronous steps, in a run that keeps them
        /// (`CudaEngine::run_with_senders`); NULL in others.
        senders: u64 as "simdx_u32*",
        /// Each vertex's sender word from asynchronous rounds (the value its sender's update set,
        /// above the sender), in a run that keeps senders; NULL in others.
        sender_words: u64 as "unsigned long long*",
        /// The vertices.
        n: u32 as "simdx_u32",
        /// The online filter's capacity (0 until the first frontier, then fixed for the run).
        online_capacity: u32 as "simdx_u32",
        /// The bits of the weight of every arc when the graph has no weights.
        uniform_weight_bits: u32 as "simdx_u32",
        /// The degree from which a warp takes a vertex's arcs.
        class_warp: u32 as "simdx_u32",
        /// The degree from which a CTA takes them.
        class_cta: u32 as "simdx_u32",
        /// The degree from which the whole grid takes them.
        class_grid: u32 as "simdx_u32",
        /// The vertices this run applies to when it applies to every vertex: `owned_begin..owned_end`
        /// (0..n, but for a share of a partitioned run: its part's range).
        owned_begin: u32 as "simdx_u32",
        /// See `owned_begin`.
        owned_end: u32 as "simdx_u32",
        /// The vertices the run's frontier and waiting lists may hold: `listed_begin..listed_end` (0..n,
        /// but for a share of owned sources: its part's range); select passes over the others.
        listed_begin: u32 as "simdx_u32",
        /// See `listed_begin`.
        listed_end: u32 as "simdx_u32",
    }
}

device_struct! {
    /// What the host and a fused (persistent) kernel hand each other (`sx_fused`, kernels/fused.cu).
    pub(crate) struct SxFused as "sx_fused" {
        /// The frontier and next worklists, swapped by `cur`.
        lists: [u64; 2] as "simdx_u32*",
        /// The degree-class worklists of a push step.
        push_classes: [u64; 4] as "simdx_u32*",
        /// The pull step's candidates by in-degree class (fixed for the run).
        pull_classes: [u64; 4] as "simdx_u32*",
        /// The lengths of pull_classes.
        pull_lens: [u32; 4] as "simdx_u32",
        /// The ballot filter's per-tile counts.
        tile_counts: u64 as "simdx_u32*",
        /// SX_BARRIER_WORDS words: see kernels/barrier.cu.
        barrier: u64 as "unsigned int*",
        /// SX_RING sets of SX_COUNTERS counters.
        ring: u64 as "unsigned long long*",
        /// Per iteration: direction | filter << 8, frontier, edges, bucket, start ns.
        log: u64 as "unsigned long long*",
        /// The iterations the log has rows for.
        log_capacity: u32 as "simdx_u32",
        /// 0 push, 1 pull, 2 auto.
        direction_policy: u32 as "simdx_u32",
        /// Auto: pull when the frontier's out-edges exceed this.
        threshold_arcs: f64 as "double",
        /// The run's iteration cap.
        max_iterations: u32 as "simdx_u32",
        /// Loop state, carried across launches: the current frontier's length.
        len: u32 as "simdx_u32",
        /// Loop state: the current bucket.
        bucket: u32 as "simdx_u32",
        /// Loop state: the iterations run so far.
        iterations: u32 as "simdx_u32",
        /// Loop state: which of `lists` holds the frontier.
        cur: u32 as "simdx_u32",
        /// Loop state: 1 while vertices may wait in later buckets.
        pending_maybe: u32 as "simdx_u32",
        /// Loop state: why the kernel returned (SX_STATUS_*).
        status: u32 as "simdx_u32",
        /// Loop state: which list of waiting vertices is current.
        fcur: u32 as "simdx_u32",
        /// The pull's chunks of in-degree >= class_cta (ph_pull_chunks).
        pull_chunks: u64 as "const simdx_u64*",
        /// The pull's chunks.
        pull_chunk_count: u32 as "simdx_u32",
        /// SX_SILENT_PULLS, as a value read at run time (see fused.rs).
        silent_pulls: u32 as "simdx_u32",
        /// Selective fusion: hand back to the host when a step's work (the frontier's out-edges plus every_work) exceeds this (0: never).
        host_above: u64 as "unsigned long long",
        /// Selective fusion: hand a push step over to asynchronous rounds (kernels/async.cu) from this iteration on (0: never).
        async_after: u32 as "simdx_u32",
        /// ... or from this one (with buckets: from async_early_bucket on), in a launch that began the run, while every frontier has held fewer than async_early_len vertices.
        async_early: u32 as "simdx_u32",
        /// See async_early.
        async_early_len: u32 as "simdx_u32",
        /// What a step of an Every program weighs beyond its out-edges (0 for other programs): the host computes it (step_work, fused.rs), so both sides weigh alike.
        every_work: u32 as "simdx_u32",
        /// Selective fusion: a push whose frontier averages under this many out-arcs a vertex stays here however big (SPREAD_ARCS_PER_VERTEX, fused.rs).
        spread_arcs: u32 as "simdx_u32",
        /// Auto: an aggregation program's settle step pulls when its vertices' out-arcs exceed all arcs >> this (SETTLE_PULL_SHIFT, fused.rs).
        settle_pull_shift: u32 as "simdx_u32",
        /// A program with buckets hands over early only from this bucket on (ASYNC_EARLY_BUCKET, fused.rs).
        async_early_bucket: u32 as "simdx_u32",
        /// Padding: the struct's size is a multiple of 8.
        pad: u32 as "simdx_u32",
    }
}

device_struct! {
    /// The head of a share's packet (`sx_packet`, kernels/shares.cu): what one step of a partitioned
    /// run changed, traded whole between the shares while it fits. Its `capacity` vertex ids, as many
    /// next-frontier ids and as many values follow it.
    pub(crate) struct SxPacket as "sx_packet" {
        /// The vertices the share reached in the step (the values it changed).
        changed: u32 as "simdx_u32",
        /// Those of them in the next frontier.
        frontier: u32 as "simdx_u32",
        /// 1: a vertex of the share waits in a later bucket.
        pending: u32 as "simdx_u32",
        /// The vertices a packet has room for.
        capacity: u32 as "simdx_u32",
    }
}

device_struct! {
    /// The work queue of asynchronous rounds as its kernel sees it (`sx_queue`, kernels/async.cu).
    pub(crate) struct SxQueue as "sx_queue" {
        /// The queue's cells.
        cells: u64 as "unsigned long long*",
        /// SX_Q_WORDS counters, zeroed before the launch (counter_slots `queue`).
        ctl: u64 as "unsigned long long*",
        /// SX_BARRIER_WORDS, zeroed.
        barrier: u64 as "unsigned int*",
        /// A frontier handed over from synchronous rounds, already prepared.
        list: u64 as "const simdx_u32*",
        /// Vertices deferred to later epochs (repeats allowed); far[cur] fills.
        far: [u64; 2] as "simdx_u32*",
        /// The length of `list`.
        len: u32 as "simdx_u32",
        /// The queue's cells.
        capacity: u32 as "simdx_u32",
        /// The entries of each far list.
        far_capacity: u32 as "simdx_u32",
        /// Padding: the struct's size is a multiple of 8.
        pad: u32 as "simdx_u32",
    }
}

device_struct! {
    /// The multi-source traversal's state (`ms_state`, kernels/multi_source.cu): device pointers and sizes.
    pub(crate) struct MsState as "ms_state" {
        /// The orientation's forward CSR: offsets.
        fwd_off: u64 as "const unsigned long long*",
        /// The forward CSR: targets.
        fwd_tgt: u64 as "const unsigned int*",
        /// The backward CSR: offsets.
        bwd_off: u64 as "const unsigned long long*",
        /// The backward CSR: targets.
        bwd_tgt: u64 as "const unsigned int*",
        /// Per vertex, the bits of the searches that reached it.
        seen: u64 as "unsigned long long*",
        /// Per vertex, the bits of the searches that reached it at the last level.
        frontier: u64 as "unsigned long long*",
        /// Per vertex, this level's discoveries.
        next: u64 as "unsigned long long*",
        /// The list of the vertices reached in a level.
        reached: u64 as "unsigned int*",
        /// The joint frontier's queues (three degree classes of n entries each), swapped by level.
        queue: [u64; 2] as "unsigned int*",
        /// The counters (counter_slots `multi_source`).
        ctr: u64 as "unsigned long long*",
        /// n * width words, level + 1 (0: unreached); null when not asked for.
        levels: u64 as "unsigned int*",
        /// The vertices.
        n: u64 as "unsigned long long",
        /// Levels written per vertex.
        width: u64 as "unsigned long long",
        /// The bits of the batch's searches.
        all: u64 as "unsigned long long",
        /// Per vertex of the large class: the end of its chunks (inclusive prefix).
        chunk_end: u64 as "unsigned int*",
        /// The search program's simdx_params (or null).
        params: u64 as "const void*",
        /// The search program's accumulators: a row of 64 per block of ms_settle (or null).
        acc: u64 as "void*",
        /// The graph's out-arc offsets, for the program's vertex view.
        out_off: u64 as "const unsigned long long*",
        /// The graph's in-arc offsets, for the program's vertex view.
        in_off: u64 as "const unsigned long long*",
    }
}

device_struct! {
    /// The state of Brandes' sweeps (`bc_state`, kernels/dependencies.cu): device pointers.
    pub(crate) struct BcState as "bc_state" {
        /// The out-CSR: offsets.
        off: u64 as "const unsigned long long*",
        /// The out-CSR: targets.
        tgt: u64 as "const unsigned int*",
        /// Each vertex's level (BC_UNREACHED: none).
        level: u64 as "unsigned int*",
        /// Each vertex's shortest paths from the source.
        sigma: u64 as "double*",
        /// Each vertex's dependency on the source.
        delta: u64 as "double*",
        /// Each vertex's dependencies, summed over the sources.
        sums: u64 as "double*",
        /// The vertices in the order reached, a range per level.
        order: u64 as "unsigned int*",
        /// The large vertices of a level.
        large: u64 as "unsigned int*",
        /// The counters (counter_slots `sweep`).
        ctr: u64 as "unsigned long long*",
    }
}

device_struct! {
    /// The state of the edge computations (`ix_state`, kernels/intersect.cu): device pointers and sizes.
    pub(crate) struct IxState as "ix_state" {
        /// The graph's CSR: offsets.
        off: u64 as "const unsigned long long*",
        /// The graph's CSR: targets.
        tgt: u64 as "const unsigned int*",
        /// The oriented CSR: offsets (n + 1).
        ooff: u64 as "unsigned long long*",
        /// The oriented CSR: targets (each edge once, to its end of higher rank).
        otgt: u64 as "unsigned int*",
        /// The oriented CSR: each arc's source.
        osrc: u64 as "unsigned int*",
        /// Per vertex, its oriented arcs (the orientation's count pass).
        cnt: u64 as "unsigned int*",
        /// Per tile of the scan, its sum and then its first offset.
        tiles: u64 as "unsigned long long*",
        /// Per vertex, its triangles (null: the total only).
        tri: u64 as "unsigned long long*",
        /// The Jaccard pairs, two vertex ids each.
        pairs: u64 as "const unsigned int*",
        /// The Jaccard coefficient of each pair.
        out: u64 as "double*",
        /// The items listed for a block each (ix_big).
        big: u64 as "unsigned long long*",
        /// The counters (counter_slots `intersect`).
        ctr: u64 as "unsigned long long*",
        /// The vertices.
        n: u64 as "unsigned long long",
        /// The oriented arcs.
        m: u64 as "unsigned long long",
        /// The Jaccard pairs.
        k: u64 as "unsigned long long",
        /// The entries of `big`.
        big_cap: u64 as "unsigned long long",
    }
}

counter_slots! {
    /// The step kernels' counters (`u64` each, `counters` of `sx_state`, and each set of a fused kernel's
    /// ring) that the host reads after a step.
    pub(crate) mod step {
        /// The next worklist's length.
        NEXT_LEN = 0, as "SX_NEXT_LEN";
        /// Non-zero: the online filter overflowed.
        OVERFLOW = 1, as "SX_OVERFLOW";
        /// Vertices filed as waiting in a later bucket.
        PENDING = 2, as "SX_PENDING";
        /// Non-zero: a share's packet could not hold its step's changes (kernels/shares.cu).
        PACKETS_FULL = 3, as "SX_PACKETS_FULL";
        /// The arcs a step inspected.
        EDGES = 4, as "SX_EDGES";
        /// The prepared frontier's out-arcs.
        OUT_EDGES = 5, as "SX_OUT_EDGES";
        /// The global sum (f64 bits).
        GLOBAL = 6, as "SX_GLOBAL";
        /// The change a stopping test reads (f64 bits).
        CHANGE = 7, as "SX_CHANGE";
        /// 4 slots: the lengths of the degree classes' lists (thread, warp, cta, grid).
        CLASS_LEN = 8, as "SX_CLASS_LEN";
        /// The counters of a set.
        COUNTERS = 12, as "SX_COUNTERS";
    }
}

counter_slots! {
    /// The slots of `far_len` (`u64` each, in `sx_state`) beyond the waiting lists' lengths and bounds.
    pub(crate) mod far {
        /// The length of delta-stepping's settle list.
        SETTLE_LEN = 4, as "SX_SETTLE_LEN";
    }
}

counter_slots! {
    /// The words of the asynchronous rounds' `ctl` (`u64` each, in `sx_queue`), each counter on its
    /// own 128-byte line.
    pub(crate) mod queue {
        /// The queue's head.
        HEAD = 0, as "SX_Q_HEAD";
        /// The queue's tail.
        TAIL = 16, as "SX_Q_TAIL";
        /// Cells relaxed, or enqueued past the last cell (dropped).
        FINISHED = 32, as "SX_Q_FINISHED";
        /// Vertices relaxed.
        ITEMS = 48, as "SX_Q_ITEMS";
        /// Arcs relaxed.
        EDGES = 64, as "SX_Q_EDGES";
        /// Epochs run.
        EPOCHS = 96, as "SX_Q_EPOCHS";
        /// The lowest bucket of a deferred active vertex, found between epochs.
        BUCKET = 104, as "SX_Q_BUCKET";
        /// 2 words: the lengths of far[0] and far[1].
        FAR_LEN = 112, as "SX_Q_FAR_LEN";
        /// 1: a vertex did not fit in the far list; the next epoch scans every vertex.
        FAR_FULL = 120, as "SX_Q_FAR_FULL";
        /// Per epoch: items and edges so far, end time (ns); LOG_EPOCHS rows.
        LOG = 128, as "SX_Q_LOG";
        /// The epochs the log has rows for (later ones share the last).
        LOG_EPOCHS = 64, as "SX_Q_LOG_EPOCHS";
        /// The words of ctl; the last holds the start time.
        WORDS = LOG + 3 * LOG_EPOCHS + 1, as "SX_Q_WORDS";
    }
}

counter_slots! {
    /// The multi-source traversal's counters (`u64` each, `ctr` of `ms_state`), read after every level.
    pub(crate) mod multi_source {
        /// 3 slots: the next queue's length per degree class.
        LEN = 0, as "MS_LEN";
        /// The out-arcs of the next queue's vertices.
        OUT_ARCS = 3, as "MS_OUT_ARCS";
        /// The in-arcs of the vertices every search has now reached.
        FINISHED = 4, as "MS_FINISHED";
        /// The length of the list of vertices reached.
        REACHED = 5, as "MS_REACHED";
        /// The arcs a pull inspected.
        EDGES = 6, as "MS_EDGES";
        /// One slot per search of a batch: its discoveries.
        COUNTS = 8, as "MS_COUNTS";
    }
}

counter_slots! {
    /// The counters of Brandes' sweeps (`u64` each, `ctr` of `bc_state`).
    pub(crate) mod sweep {
        /// Vertices appended to the next level.
        NEXT = 0, as "BC_NEXT";
        /// Large vertices listed.
        LARGE = 1, as "BC_LARGE";
        /// The arcs of the vertices reached (for the statistics).
        ARCS = 2, as "BC_ARCS";
        /// The counters.
        WORDS = 3, as "BC_WORDS";
    }
}

device_struct! {
    /// The state of the strongly connected components (`sc_state`, kernels/strong.cu): device pointers
    /// and sizes.
    pub(crate) struct ScState as "sc_state" {
        /// The out-CSR: offsets.
        off: u64 as "const unsigned long long*",
        /// The out-CSR: targets.
        tgt: u64 as "const unsigned int*",
        /// The in-CSR: offsets (an undirected graph's out-CSR).
        ioff: u64 as "const unsigned long long*",
        /// The in-CSR: sources (an undirected graph's out-CSR targets).
        isrc: u64 as "const unsigned int*",
        /// Per vertex, its component (SC_OPEN: none yet).
        comp: u64 as "unsigned int*",
        /// Per vertex, its colour (the smallest id found reaching it).
        colour: u64 as "unsigned int*",
        /// Per vertex, the round after which the forward search entered it, or its colour last fell.
        fw: u64 as "unsigned int*",
        /// Per vertex, the round after which the backward search entered it (0: not entered).
        bw: u64 as "unsigned int*",
        /// The counters (counter_slots `strong`).
        ctr: u64 as "unsigned long long*",
        /// The vertices.
        n: u64 as "unsigned long long",
    }
}

device_struct! {
    /// What the BFS parent tree's kernel takes (`tr_state`, kernels/tree.cu), by value: device pointers
    /// and sizes.
    pub(crate) struct TrState as "tr_state" {
        /// Per vertex, its BFS level (0xffffffff: unreached).
        level: u64 as "const unsigned int*",
        /// The in-CSR: offsets (an undirected graph's out-CSR).
        ioff: u64 as "const unsigned long long*",
        /// The in-CSR: sources (an undirected graph's out-CSR targets).
        isrc: u64 as "const unsigned int*",
        /// Per vertex, its parent, written by the kernel.
        parent: u64 as "unsigned int*",
        /// The vertices.
        n: u64 as "unsigned long long",
        /// The search's source.
        source: u64 as "unsigned long long",
        /// 1: only the reached vertices whose parent is 0xffffffff get one; the others keep theirs.
        mend: u64 as "unsigned long long",
    }
}

counter_slots! {
    /// The edge computations' counters (`u64` each, `ctr` of `ix_state`).
    pub(crate) mod intersect {
        /// The triangles counted.
        TOTAL = 0, as "IX_TOTAL";
        /// The items listed for a block each (more than `big_cap` when some did not fit).
        BIG = 1, as "IX_BIG";
        /// The oriented arcs (the orientation's scan).
        ARCS = 2, as "IX_ARCS";
        /// The counters.
        WORDS = 3, as "IX_WORDS";
    }
}

counter_slots! {
    /// The strongly connected components' counters (`u64` each, `ctr` of `sc_state`).
    pub(crate) mod strong {
        /// Set when a round changed something (a vertex placed, entered or recoloured).
        CHANGED = 0, as "SC_CHANGED";
        /// The vertices placed in a component by the step.
        PLACED = 1, as "SC_PLACED";
        /// The pivot: its in-degree x out-degree (saturated) above, the complement of its id below.
        PIVOT = 2, as "SC_PIVOT";
        /// The smallest id of the pivot's component (u64::MAX before the reduction).
        NAME = 3, as "SC_NAME";
        /// The counters.
        WORDS = 4, as "SC_WORDS";
    }
}

/// The C declaration of `T`, generated from its Rust definition, with `static_assert`s on its fields'
/// sizes and its size (NVRTC checks them) and on its fields' offsets (a host compiler checks them).
pub(crate) fn declaration<T: DeviceStruct>() -> String {
    let name = T::C_NAME;
    let mut c =
        format!("/* {} Generated from simdx-cuda/src/device_structs.rs. */\ntypedef struct {{\n", T::DOC.trim());
    for f in T::FIELDS {
        let len = f.len.map_or(String::new(), |n| format!("[{n}]"));
        let _ = writeln!(c, "    {} {}{len}; /* {} */", f.c_type, f.name, f.doc.trim());
    }
    if let Some((ty, field)) = T::TAIL {
        let _ = writeln!(c, "    {ty} {field};");
    }
    let _ = writeln!(c, "}} {name};");
    let size = std::mem::size_of::<T>();
    for f in T::FIELDS {
        let _ = writeln!(
            c,
            "static_assert(sizeof((({name}*)0)->{0}) == {1}, \"{name}.{0}: device_structs.rs has it {1} bytes wide\");",
            f.name, f.size
        );
    }
    match T::TAIL {
        // The tail's alignment is at most 8 (scalars and pointers), and the head's size a multiple of 8.
        Some((ty, field)) => {
            let _ = writeln!(
                c,
                "static_assert(sizeof({name}) == ({size} + sizeof({ty}) + 7) / 8 * 8, \"{name}: device_structs.rs puts {field} at byte {size}\");"
            );
        }
        None => {
            let _ = writeln!(
                c,
                "static_assert(sizeof({name}) == {size}, \"{name}: device_structs.rs has it {size} bytes\");"
            );
        }
    }
    c.push_str("#ifndef __CUDACC_RTC__\n");
    for f in T::FIELDS.iter().map(|f| (f.name, f.offset)).chain(T::TAIL.map(|(_, field)| (field, size))) {
        let _ = writeln!(
            c,
            "static_assert(__builtin_offsetof({name}, {0}) == {1}, \"{name}.{0}: device_structs.rs has it at byte {1}\");",
            f.0, f.1
        );
    }
    c.push_str("#endif\n");
    c
}

/// The `#define`s of counter slots (`DEFINES` of a [`counter_slots!`] module).
fn defines(slots: &[(&str, usize, &str)]) -> String {
    slots.iter().map(|(name, value, doc)| format!("#define {name} {value} /* {} */\n", doc.trim())).collect()
}

/// `static_assert`s that the C constants `checks` (name, value) have the host's values.
fn constant_checks(checks: &[(&str, u64)]) -> String {
    checks
        .iter()
        .map(|(name, value)| {
            format!("static_assert({name} == {value}ull, \"{name}: the host (device_structs.rs) has {value}\");\n")
        })
        .collect()
}

/// What the engine's unit declares between the program's device code and kernels/state.cu: the
/// structs `sx_state`, `sx_fused`, `sx_queue` and the counter slots of the steps, `far_len` and the
/// queue.
pub(crate) fn engine_header() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        [
            declaration::<SxState>(),
            declaration::<SxFused>(),
            declaration::<SxQueue>(),
            declaration::<SxPacket>(),
            defines(step::DEFINES),
            defines(far::DEFINES),
            defines(queue::DEFINES),
        ]
        .concat()
    })
}

/// The constants the engine's kernels keep (kernels/*.cu) and the host mirrors, checked at the end
/// of the engine's unit.
pub(crate) fn engine_footer() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        use crate::engine::kernels::{ARCS_BEYOND, ARCS_WITHIN, LIVE_STAMP};
        use crate::fused::{RING, STATUS_ASYNC, STATUS_HOST, STATUS_SWITCH};
        constant_checks(&[
            ("SX_BLOCK", u64::from(BLOCK)),
            ("SX_ILP", u64::from(ILP)),
            ("SX_TILE", u64::from(TILE)),
            ("SX_BARRIER_WORDS", GRID_BARRIER_WORDS as u64),
            ("SX_LIVE", u64::from(LIVE_STAMP)),
            ("SX_ARCS_WITHIN", u64::from(ARCS_WITHIN)),
            ("SX_ARCS_BEYOND", u64::from(ARCS_BEYOND)),
            ("SX_RING", RING as u64),
            ("SX_STATUS_SWITCH", u64::from(STATUS_SWITCH)),
            ("SX_STATUS_HOST", u64::from(STATUS_HOST)),
            ("SX_STATUS_ASYNC", u64::from(STATUS_ASYNC)),
        ])
    })
}

/// What the multi-source unit starts with: `ms_state` and the traversal's counter slots.
pub(crate) fn multi_source_header() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| [declaration::<MsState>(), defines(multi_source::DEFINES)].concat())
}

/// What the edge computations' unit starts with: `ix_state` and its counter slots.
pub(crate) fn intersect_header() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| [declaration::<IxState>(), defines(intersect::DEFINES)].concat())
}

/// What the strongly connected components' unit starts with: `sc_state` and its counter slots.
pub(crate) fn strong_header() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| [declaration::<ScState>(), defines(strong::DEFINES)].concat())
}

/// What the BFS parent tree's unit starts with: `tr_state`.
pub(crate) fn tree_header() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(declaration::<TrState>)
}

/// What the sweeps' unit starts with: `bc_state` and the sweeps' counter slots.
pub(crate) fn sweep_header() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| [declaration::<BcState>(), defines(sweep::DEFINES)].concat())
}

#[cfg(test)]
mod tests;
