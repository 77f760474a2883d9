//! Collective attributes and manual computations (decision 65).
//!
//! A collective runs between *instances*: the N per-device runs of an `sdy.manual_computation`
//! body (replica 0, partition 0..N) or the R runs of a `num_replicas > 1` program (replica 0..R,
//! partition 0). Which instances meet depends on the ids the groups name, chosen as the StableHLO
//! spec says from `channel_id` and `use_global_device_ids` ([`GroupMode`]).

/// `replica_groups`, `channel_handle` and `use_global_device_ids` of a collective.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ReplicaGroups {
    /// Explicit groups of ids (an iota or mesh-axes form is expanded by the reader). Empty: one
    /// group of every id.
    pub groups: Vec<Vec<i64>>,
    /// The channel handle's id; `None` when absent or not positive.
    pub channel_id: Option<i64>,
    pub use_global_device_ids: bool,
    /// Mesh-axes groups (StableHLO 1.16+) not yet expanded: the mesh's name and the axes. A reader
    /// that meets them before the module's meshes expands them once it knows the meshes.
    pub mesh_axes: Option<(String, Vec<String>)>,
}

/// What the ids in a collective's groups mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// Groups of replica ids; each partition meets separately.
    CrossReplica,
    /// Groups of replica ids; every partition of those replicas takes part.
    CrossReplicaAndPartition,
    /// Groups of partition ids; each replica meets separately.
    CrossPartition,
    /// Groups of global ids `replica * num_partitions + partition`.
    FlattenedIds,
}

impl ReplicaGroups {
    /// The mode of all_reduce, all_gather, reduce_scatter (and all_to_all with `cross_partition`
    /// false: StableHLO's all_to_all has no `use_global_device_ids` and is cross-partition exactly
    /// when it has a channel).
    pub fn mode(&self) -> GroupMode {
        match (self.channel_id.is_some(), self.use_global_device_ids) {
            (false, _) => GroupMode::CrossReplica,
            (true, false) => GroupMode::CrossReplicaAndPartition,
            (true, true) => GroupMode::FlattenedIds,
        }
    }
}

/// The instances taking part, as global ids `replica * num_partitions + partition`, in group
/// order, for the group that contains instance `me`; `None` when `me` is in no group.
pub fn participants(mode: GroupMode, groups: &[Vec<i64>], me: i64, num_replicas: i64, num_partitions: i64) -> Option<Vec<i64>> {
    let (r, p) = (me / num_partitions, me % num_partitions);
    let id_space = match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => num_replicas,
        GroupMode::CrossPartition => num_partitions,
        GroupMode::FlattenedIds => num_replicas * num_partitions,
    };
    let all: Vec<i64> = (0..id_space).collect();
    let groups: Vec<&[i64]> = if groups.is_empty() { vec![&all] } else { groups.iter().map(|g| g.as_slice()).collect() };
    let my_id = match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => r,
        GroupMode::CrossPartition => p,
        GroupMode::FlattenedIds => me,
    };
    let group = groups.into_iter().find(|g| g.contains(&my_id))?;
    Some(match mode {
        GroupMode::CrossReplica => group.iter().map(|&q| q * num_partitions + p).collect(),
        GroupMode::CrossPartition => group.iter().map(|&q| r * num_partitions + q).collect(),
        GroupMode::CrossReplicaAndPartition => {
            group.iter().flat_map(|&q| (0..num_partitions).map(move |pp| q * num_partitions + pp)).collect()
        }
        GroupMode::FlattenedIds => group.to_vec(),
    })
}

/// The ids named by a collective: each must be below `limit` and appear at most once.
pub fn check_groups(groups: &[Vec<i64>], limit: i64) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for &id in groups.iter().flatten() {
        if !(0..limit).contains(&id) {
            return Err(format!("replica group id {id} is outside 0..{limit}"));
        }
        if !seen.insert(id) {
            return Err(format!("replica group id {id} appears twice"));
        }
    }
    let sizes: std::collections::BTreeSet<usize> = groups.iter().map(|g| g.len()).collect();
    if sizes.len() > 1 {
        return Err(format!("replica groups of different sizes {sizes:?}"));
    }
    Ok(())
}

/// The `sdy.sharding` of a main-function argument or result: the mesh it names (resolved once the
/// module's meshes are read) and the mesh axes each dimension is split over. A program partitioned
/// over N devices runs as the global program once; these say how each device's piece maps into it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ValueSharding {
    pub mesh_name: String,
    pub mesh: MeshAxes,
    pub dims: DimAxes,
    /// Axes the value is unreduced over (Shardy's `unreduced={...}`): the devices along them hold
    /// pieces that add up to the value.
    pub unreduced: Vec<String>,
}

/// A Shardy mesh: named axes with sizes, row-major (the last axis varies fastest).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct MeshAxes {
    pub axes: Vec<(String, i64)>,
    /// The device (partition) at each mesh position, row-major; empty when it is 0..N. Only the
    /// shardings of a program's parameters and results may name such a mesh (decision 94).
    pub device_ids: Vec<i64>,
}

impl MeshAxes {
    /// The mesh position of partition `id` (`id` itself when the order is 0..N).
    pub fn position_of(&self, id: i64) -> i64 {
        self.device_ids.iter().position(|&d| d == id).map_or(id, |p| p as i64)
    }
    pub fn size(&self) -> i64 {
        self.axes.iter().map(|a| a.1).product()
    }
    pub fn axis(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|a| a.0 == name)
    }
    /// Coordinates of mesh position `pos`.
    pub fn coords(&self, mut pos: i64) -> Vec<i64> {
        let mut c = vec![0; self.axes.len()];
        for (i, a) in self.axes.iter().enumerate().rev() {
            c[i] = pos % a.1;
            pos /= a.1;
        }
        c
    }
    /// The groups of `replica_group_mesh_axes`: positions that agree on every axis but `axes`,
    /// each ordered row-major over `axes` in the order given.
    pub fn groups_over(&self, axes: &[String]) -> Result<Vec<Vec<i64>>, String> {
        let idx: Vec<usize> = axes.iter().map(|a| self.axis(a).ok_or_else(|| format!("no mesh axis \"{a}\""))).collect::<Result<_, _>>()?;
        let mut groups: Vec<(Vec<i64>, Vec<(Vec<i64>, i64)>)> = Vec::new();
        for pos in 0..self.size() {
            let c = self.coords(pos);
            let rest: Vec<i64> = c.iter().enumerate().filter(|(i, _)| !idx.contains(i)).map(|x| *x.1).collect();
            let inner: Vec<i64> = idx.iter().map(|&i| c[i]).collect();
            match groups.iter_mut().find(|g| g.0 == rest) {
                Some(g) => g.1.push((inner, pos)),
                None => groups.push((rest, vec![(inner, pos)])),
            }
        }
        Ok(groups
            .into_iter()
            .map(|(_, mut members)| {
                members.sort();
                members.into_iter().map(|m| m.1).collect()
            })
            .collect())
    }
}

/// How a value is split over mesh axes: per dimension, the axes (major to minor) it is split
/// over; axes not named anywhere replicate it.
pub type DimAxes = Vec<Vec<String>>;

/// The attributes of `sdy.manual_computation`, with the mesh its shardings name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ManualComputation {
    pub mesh: MeshAxes,
    /// The name of the mesh (`@mesh`) the shardings refer to.
    pub mesh_name: String,
    pub in_shardings: Vec<DimAxes>,
    pub out_shardings: Vec<DimAxes>,
    pub manual_axes: Vec<String>,
    /// Per operand and per result (empty: none anywhere): the axes it is unreduced over. An
    /// unreduced operand reaches the instance at coordinate 0 of those axes whole and the others as
    /// zeros; an unreduced result is the sum of the instances' along them.
    pub in_unreduced: Vec<Vec<String>>,
    pub out_unreduced: Vec<Vec<String>>,
}

impl ManualComputation {
    /// Number of instances: the mesh's size, also when some axes are free (decision 91): the
    /// instances along a free axis each hold the whole value along it and compute the same thing,
    /// so that the body's collectives name instances by their global device ids, as JAX writes them.
    pub fn instances(&self) -> i64 {
        self.mesh.size()
    }

    /// Whether `axis` is one of this computation's manual axes.
    pub fn is_manual(&self, axis: &str) -> bool {
        self.manual_axes.iter().any(|a| a == axis)
    }

    /// For one dimension split over `axes`, how many pieces it has and which of them instance
    /// `pos` holds. Only manual axes split the body's view; free axes leave the dimension whole.
    pub fn piece(&self, axes: &[String], pos: i64) -> (i64, i64) {
        let c = self.mesh.coords(pos);
        let mut count = 1;
        let mut index = 0;
        for a in axes.iter().filter(|a| self.is_manual(a)) {
            let i = self.mesh.axis(a).unwrap_or(0);
            let size = self.mesh.axes.get(i).map_or(1, |x| x.1);
            count *= size;
            index = index * size + c[i];
        }
        (count, index)
    }

    /// Whether instance `pos` provides a result split as `dims`: it must be the first (coordinate
    /// 0) along every mesh axis the result is replicated over and along every free axis. Along the
    /// axes it is `unreduced` over, every instance provides a part (the parts add up).
    pub fn provides(&self, dims: &DimAxes, unreduced: &[String], pos: i64) -> bool {
        let c = self.mesh.coords(pos);
        let split = self.split_axes(dims, unreduced);
        self.mesh.axes.iter().enumerate().all(|(i, a)| c[i] == 0 || split.contains(&a.0))
    }

    /// The manual axes a value split as `dims` and unreduced over `unreduced` varies along: the
    /// instances that differ only along them hold different pieces or parts of it.
    pub fn split_axes(&self, dims: &DimAxes, unreduced: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for a in dims.iter().flatten().chain(unreduced) {
            if self.is_manual(a) && !out.contains(a) {
                out.push(a.clone());
            }
        }
        out
    }

    /// Whether instance `pos` is at coordinate 0 of every axis in `unreduced` (the one that gets an
    /// unreduced operand whole; the others get zeros).
    pub fn first_along(&self, unreduced: &[String], pos: i64) -> bool {
        let c = self.mesh.coords(pos);
        unreduced.iter().all(|a| self.mesh.axis(a).map_or(true, |i| c[i] == 0))
    }

    /// The unreduced axes of operand `i` / result `i` (none when not given).
    pub fn operand_unreduced(&self, i: usize) -> &[String] {
        self.in_unreduced.get(i).map_or(&[], Vec::as_slice)
    }

    pub fn result_unreduced(&self, i: usize) -> &[String] {
        self.out_unreduced.get(i).map_or(&[], Vec::as_slice)
    }

    /// Checks a sharding against the mesh, and that the global shape `global` splits evenly over
    /// the manual axes into the local shape `local` (free axes leave a dimension whole).
    pub fn check_sharding(&self, dims: &DimAxes, global: &[i64], local: &[i64]) -> Result<(), String> {
        if dims.len() != global.len() || global.len() != local.len() {
            return Err(format!("sharding of rank {} for a value of rank {} (local rank {})", dims.len(), global.len(), local.len()));
        }
        for (d, axes) in dims.iter().enumerate() {
            for a in axes {
                if self.mesh.axis(a).is_none() {
                    return Err(format!("sharding names axis \"{a}\" that the mesh lacks"));
                }
            }
            let (count, _) = self.piece(axes, 0);
            if local[d] * count != global[d] {
                return Err(format!("dimension {d}: global size {} is not {count} pieces of {}", global[d], local[d]));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(axes: &[(&str, i64)]) -> MeshAxes {
        MeshAxes { axes: axes.iter().map(|(n, s)| (n.to_string(), *s)).collect(), device_ids: Vec::new() }
    }

    #[test]
    fn mesh_axis_groups() {
        let m = mesh(&[("a", 2), ("b", 2)]);
        assert_eq!(m.groups_over(&["b".into()]).unwrap(), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(m.groups_over(&["a".into()]).unwrap(), vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(m.groups_over(&["b".into(), "a".into()]).unwrap(), vec![vec![0, 2, 1, 3]]);
        assert!(m.groups_over(&["c".into()]).is_err());
    }

    #[test]
    fn participants_by_mode() {
        let g = vec![vec![0, 2], vec![1, 3]];
        assert_eq!(participants(GroupMode::FlattenedIds, &g, 3, 1, 4), Some(vec![1, 3]));
        assert_eq!(participants(GroupMode::FlattenedIds, &[], 3, 1, 4), Some(vec![0, 1, 2, 3]));
        // One replica: cross-replica groups hold each partition alone; with partitions, all of them.
        assert_eq!(participants(GroupMode::CrossReplica, &[vec![0]], 2, 1, 4), Some(vec![2]));
        assert_eq!(participants(GroupMode::CrossReplicaAndPartition, &[vec![0]], 2, 1, 4), Some(vec![0, 1, 2, 3]));
        assert_eq!(participants(GroupMode::CrossPartition, &[vec![3, 1]], 1, 1, 4), Some(vec![3, 1]));
        assert_eq!(participants(GroupMode::CrossPartition, &[vec![3, 1]], 0, 1, 4), None);
        // Replicas: 2 replicas of 1 partition.
        assert_eq!(participants(GroupMode::CrossReplica, &[], 1, 2, 1), Some(vec![0, 1]));
    }

    #[test]
    fn pieces_and_providers() {
        let mc = ManualComputation {
            mesh: mesh(&[("a", 2), ("b", 2)]),
            manual_axes: vec!["a".into(), "b".into()],
            ..Default::default()
        };
        // Position 3 = (a 1, b 1).
        assert_eq!(mc.piece(&["a".into()], 3), (2, 1));
        assert_eq!(mc.piece(&["b".into(), "a".into()], 2), (4, 1));
        let rows: DimAxes = vec![vec!["a".into()], vec![]];
        assert!(mc.provides(&rows, &[], 2) && !mc.provides(&rows, &[], 3));
        // Unreduced over b: both b coordinates provide their part.
        assert!(mc.provides(&rows, &["b".into()], 3) && mc.provides(&rows, &["b".into()], 1));
        assert!(mc.first_along(&["b".into()], 2) && !mc.first_along(&["b".into()], 3));
        assert!(mc.check_sharding(&rows, &[4, 2], &[2, 2]).is_ok());
        assert!(mc.check_sharding(&rows, &[4, 2], &[4, 2]).is_err());
    }
}
