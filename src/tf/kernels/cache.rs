//! Compiled TensorFlow ops, one per (op with its attributes, input types, values of the inputs the
//! lowering reads), so that a kernel called again with the same shapes runs its program at once.
//!
//! Thread safety without holding a lock during compute: a lookup takes the read lock only to clone an
//! `Arc` of the entry; compiling happens outside any lock (two threads missing on the same key at once
//! may both compile; the first insert wins). The cache is bounded (`APU_TF_KERNEL_CACHE` entries,
//! default [`DEFAULT_CAPACITY`]): inserting into a full cache drops the least recently used entry.

use super::compile::{compile_op, Compiled};
use super::lower::lower;
use super::ops::TfOp;
use apu_compiler::ir::TensorType;
use apu_compiler::Result;
use apu_runtime::{AlignedBytes, Tensor};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

pub const DEFAULT_CAPACITY: usize = 1024;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The op and its attributes (`TfOp`'s debug form, made once per kernel instance).
    pub op: Arc<str>,
    pub types: Vec<TensorType>,
    /// The bytes of the inputs whose values the lowering reads (axes, shapes, multiples).
    pub values: Vec<u8>,
}

pub struct Entry {
    compiled: Compiled,
    /// Which op inputs are the program's arguments, in order.
    params: Vec<usize>,
    /// The program's result types (`None` when it runs on the interpreter: known after the run).
    results: Option<Vec<TensorType>>,
    last_used: AtomicU64,
}

impl Entry {
    /// The result types, known before the run for a planned program (so its outputs can be
    /// allocated first and written in place).
    pub fn result_types(&self) -> Option<&[TensorType]> {
        self.results.as_deref()
    }

    /// Runs the program on the op's `inputs`, writing result `i` into `targets[i]` where it can
    /// (see `Program::run_into`; an empty `targets` allocates every result).
    pub fn run(&self, op: &TfOp, inputs: &[Tensor], targets: Vec<Option<AlignedBytes>>) -> Result<Vec<Tensor>> {
        let args: Vec<Tensor> = self.params.iter().map(|&i| inputs[i].clone()).collect();
        let ran = if targets.is_empty() { self.compiled.program.run(&args) } else { self.compiled.program.run_into(&args, targets) };
        ran.map_err(|e| e.context(format!("TensorFlow op {}", op.name())))
    }
}

pub struct OpCache {
    entries: RwLock<HashMap<Key, Arc<Entry>>>,
    capacity: usize,
    clock: AtomicU64,
    compiles: AtomicU64,
    evictions: AtomicU64,
    log: bool,
}

impl OpCache {
    pub fn new(capacity: usize) -> Self {
        OpCache {
            entries: RwLock::new(HashMap::new()),
            capacity: capacity.max(1),
            clock: AtomicU64::new(0),
            compiles: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            log: std::env::var("APU_TF_LOG_COMPILES").map(|v| v == "1" || v == "true").unwrap_or(false),
        }
    }

    /// How many ops this cache compiled.
    pub fn compiles(&self) -> u64 {
        self.compiles.load(Ordering::Relaxed)
    }
    pub fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
    }
    pub fn len(&self) -> usize {
        self.entries.read().map(|m| m.len()).unwrap_or(0)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `op` (whose debug form is `op_key`) on `inputs`, compiling it first if this cache has
    /// not seen these input types (and read values) before.
    pub fn run(&self, op_key: &Arc<str>, op: &TfOp, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        self.entry(op_key, op, inputs)?.run(op, inputs, Vec::new())
    }

    /// The compiled program of `op` for these inputs' types (and read values), compiling it on a miss.
    pub fn entry(&self, op_key: &Arc<str>, op: &TfOp, inputs: &[Tensor]) -> Result<Arc<Entry>> {
        let key = Key {
            op: op_key.clone(),
            types: inputs.iter().map(|t| t.ty.clone()).collect(),
            values: op.value_inputs(inputs.len()).filter_map(|i| inputs.get(i)).flat_map(|t| t.bytes().iter().copied()).collect(),
        };
        match self.lookup(&key) {
            Some(e) => Ok(e),
            None => self.compile_and_insert(key, op, inputs),
        }
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    fn lookup(&self, key: &Key) -> Option<Arc<Entry>> {
        let e = self.entries.read().ok()?.get(key).cloned()?;
        e.last_used.store(self.tick(), Ordering::Relaxed);
        Some(e)
    }

    fn compile_and_insert(&self, key: Key, op: &TfOp, inputs: &[Tensor]) -> Result<Arc<Entry>> {
        let name = op.name();
        let lowered = lower(op, inputs).map_err(|e| e.context(format!("TensorFlow op {name}")))?;
        let module = apu_compiler::valid::validate(lowered.module).map_err(|e| e.context(format!("TensorFlow op {name}")))?;
        let compiled = compile_op(&name, &module)?;
        let n = self.compiles.fetch_add(1, Ordering::Relaxed) + 1;
        if compiled.fallback_steps > 0 {
            // Not silent: the op runs, but part of it on the interpreter.
            eprintln!(
                "apu: TensorFlow op {name} on {:?}: {} plan step(s) run on the interpreter ({})",
                key.types, compiled.fallback_steps, compiled.summary
            );
        }
        if self.log {
            eprintln!("apu: compiled TensorFlow op {name} for {} (compile #{n}; plan: {})", describe(&key.types), compiled.summary);
        }
        let results = compiled.program.plan().map(|plan| plan.results.iter().map(|&r| plan.slots[r].clone()).collect());
        let entry = Arc::new(Entry { compiled, params: lowered.params, results, last_used: AtomicU64::new(self.tick()) });
        let mut map = self.entries.write().unwrap_or_else(|p| p.into_inner());
        if let Some(existing) = map.get(&key) {
            return Ok(existing.clone());
        }
        while map.len() >= self.capacity {
            let Some(oldest) = map.iter().min_by_key(|(_, e)| e.last_used.load(Ordering::Relaxed)).map(|(k, _)| k.clone()) else {
                break;
            };
            map.remove(&oldest);
            self.evictions.fetch_add(1, Ordering::Relaxed);
        }
        map.insert(key, entry.clone());
        Ok(entry)
    }
}

fn describe(types: &[TensorType]) -> String {
    types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
}

/// The process's cache, used by every kernel.
pub fn global() -> &'static OpCache {
    static CACHE: OnceLock<OpCache> = OnceLock::new();
    CACHE.get_or_init(|| {
        let cap = std::env::var("APU_TF_KERNEL_CACHE").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_CAPACITY);
        OpCache::new(cap)
    })
}
