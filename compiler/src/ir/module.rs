//! Modules, functions, regions and ops. Values live in one arena per function (regions are not
//! isolated from above, so a region may use any value defined before it in the same function).

use super::ops::OpKind;
use super::types::Type;
use std::fmt;

/// An SSA value of one function: an index into [`Function::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

impl ValueId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// A source location, as precise as the input gives it (for error messages).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// `file:line:col` or an op name such as `jit(f)/dot_general`; empty when unknown.
    pub text: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text.is_empty() {
            write!(f, "unknown location")
        } else {
            f.write_str(&self.text)
        }
    }
}

/// One operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub kind: OpKind,
    pub operands: Vec<ValueId>,
    pub results: Vec<ValueId>,
    pub regions: Vec<Region>,
    pub location: Location,
}

impl Op {
    pub fn new(kind: OpKind, operands: Vec<ValueId>, results: Vec<ValueId>) -> Self {
        Op { kind, operands, results, regions: Vec::new(), location: Location::default() }
    }
}

/// A single-block region: block arguments, ops, and the values its terminator returns.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Region {
    pub params: Vec<ValueId>,
    pub ops: Vec<Op>,
    pub results: Vec<ValueId>,
}

/// Per-argument attributes apu cares about.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ArgAttrs {
    /// `tf.aliasing_output`: the output this (donated) argument may alias.
    pub aliasing_output: Option<u32>,
    /// `sdy.sharding` over a mesh (entry functions of partitioned programs).
    pub sharding: Option<super::collective::ValueSharding>,
    /// `mhlo.memory_kind` (`"device"`, `"pinned_host"`, ...): the memory JAX places the argument in.
    pub memory_kind: Option<String>,
    /// `jax.buffer_donor`: donated without a chosen output (JAX's form for partitioned programs);
    /// the compiler picks the output it aliases (decision 93).
    pub buffer_donor: bool,
}

/// A function: its value arena, its body and its signature.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Function {
    pub name: String,
    pub public: bool,
    /// Type of every value of the function, indexed by [`ValueId`].
    pub values: Vec<Type>,
    /// Parameters are `body.params`; results are `body.results`.
    pub body: Region,
    pub result_types: Vec<Type>,
    pub arg_attrs: Vec<ArgAttrs>,
    /// `sdy.sharding` of each result over a mesh, when given (empty when none is).
    pub result_shardings: Vec<Option<super::collective::ValueSharding>>,
    /// `mhlo.memory_kind` of each result, when given (empty when no result has one).
    pub result_memory_kinds: Vec<Option<String>>,
    /// Shardings the program asks for values of its body (Shardy's `sharding_constraint` /
    /// `reshard`, read as identities): they do not change values, only where a partitioned result
    /// is reported to live (decision 92).
    pub constraints: Vec<(ValueId, super::collective::ValueSharding)>,
}

impl Function {
    pub fn new(name: impl Into<String>) -> Self {
        Function { name: name.into(), ..Default::default() }
    }
    /// Adds a value of type `ty` to the arena.
    pub fn new_value(&mut self, ty: Type) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(ty);
        id
    }
    pub fn value_type(&self, v: ValueId) -> &Type {
        &self.values[v.index()]
    }
    pub fn param_types(&self) -> Vec<Type> {
        self.body.params.iter().map(|&p| self.values[p.index()].clone()).collect()
    }
}

/// A whole program. The entry function is `main` (JAX, StableHLO) or the HLO entry computation.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub name: String,
    pub functions: Vec<Function>,
    /// Index of the entry function in `functions`.
    pub entry: usize,
    pub num_replicas: u32,
    pub num_partitions: u32,
}

impl Module {
    pub fn entry_function(&self) -> &Function {
        &self.functions[self.entry]
    }
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    pub fn function_index(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }
}
