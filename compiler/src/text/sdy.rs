//! Shardy syntax the text reader understands: mesh declarations (kept by name for the ops that
//! refer to them), `sdy.manual_computation` in its pretty form, and collectives' mesh-axes replica
//! groups (`#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]>`), expanded to explicit
//! groups of mesh positions (decision 65).

use super::attr::Attr;
use super::lexer::TokKind;
use super::ops::{FuncState, OpSyntax};
use super::parser::Parser;
use crate::ir::{DimAxes, ManualComputation, MeshAxes, OpKind};
use crate::Result;

impl<'a> Parser<'a> {
    /// `<["x"=4, "y"=2]>` or `<["x"=4], device_ids=[...]>` after `sdy.mesh @name =`. Meshes whose
    /// device order is not the identity are recorded as such and refused where used.
    pub(super) fn parse_mesh_body(&mut self, name: &str) -> Result<()> {
        let start = self.tok.start;
        self.expect_punct("<")?;
        self.expect_punct("[")?;
        let axes = self.comma_list("]", |p| {
            let n = p.expect_kind(TokKind::String, "a mesh axis name")?.text;
            p.expect_punct("=")?;
            let size = p.parse_i64()?;
            if size < 1 {
                return Err(p.err_at(p.tok.start, format!("mesh axis \"{n}\" of size {size}")));
            }
            Ok((n, size))
        })?;
        let mesh = MeshAxes { axes, device_ids: Vec::new() };
        let mut iota = true;
        if self.eat_punct(",")? {
            self.expect_id("device_ids")?;
            self.expect_punct("=")?;
            let ids = self.parse_i64_list()?;
            iota = ids.iter().copied().eq(0..mesh.size()) || ids.len() == 1 && mesh.size() == 1;
        }
        self.expect_punct(">")?;
        if mesh.axes.is_empty() && !iota {
            return Err(self.err_at(start, "a maximal mesh (one device) is not a manual mesh"));
        }
        self.meshes.insert(name.to_string(), (mesh, iota));
        Ok(())
    }

    /// `<@mesh, [{"x"}, {}]>`: the per-dimension axes of a tensor sharding, the mesh's name and the
    /// unreduced axes (`unreduced={"y"}`).
    pub(super) fn parse_tensor_sharding(&mut self) -> Result<(String, DimAxes, Vec<String>)> {
        let start = self.tok.start;
        self.expect_punct("<")?;
        if self.tok.kind != TokKind::AtId {
            return Err(self.unimplemented_at(start, "a sharding with an inline mesh (apu reads `<@mesh, [...]>`)"));
        }
        let mesh = self.bump()?.text;
        self.expect_punct(",")?;
        self.expect_punct("[")?;
        let dims = self.comma_list("]", |p| {
            p.expect_punct("{")?;
            // `?` leaves the dimension open to more (free) axes: the partitioner's choice, which
            // does not change the values, so apu keeps the axes named.
            let axes = p.comma_list("}", |q| {
                if q.at_punct("?") {
                    q.bump()?;
                    return Ok(None);
                }
                let axis = q.expect_kind(TokKind::String, "a mesh axis name")?.text;
                if q.at_punct(":") {
                    return Err(q.unimplemented_at(q.tok.start, "sub-axes in a sharding"));
                }
                Ok(Some(axis))
            })?;
            Ok(axes.into_iter().flatten().collect())
        })?;
        // `replicated={...}` only restates that the value is replicated; `unreduced={...}` says
        // which axes hold parts that add up to the value.
        let mut unreduced = Vec::new();
        while self.eat_punct(",")? {
            let kw = self.expect_kind(TokKind::BareId, "replicated={...} or unreduced={...}")?.text;
            if kw != "replicated" && kw != "unreduced" {
                return Err(self.unimplemented_at(start, format!("sharding with {kw}={{...}}")));
            }
            self.expect_punct("=")?;
            self.expect_punct("{")?;
            let axes = self.comma_list("}", |q| Ok(q.expect_kind(TokKind::String, "a mesh axis name")?.text))?;
            if kw == "unreduced" {
                unreduced = axes;
            }
        }
        self.expect_punct(">")?;
        Ok((mesh, dims, unreduced))
    }

    fn parse_sharding_list(&mut self, kw: &str, mesh: &mut Option<String>) -> Result<Vec<(DimAxes, Vec<String>)>> {
        self.expect_id(kw)?;
        self.expect_punct("=")?;
        self.expect_punct("[")?;
        self.comma_list("]", |p| {
            let at = p.tok.start;
            let (m, dims, unreduced) = p.parse_tensor_sharding()?;
            match mesh {
                Some(prev) if *prev != m => Err(p.unimplemented_at(at, format!("shardings over two meshes @{prev} and @{m}"))),
                _ => {
                    *mesh = Some(m);
                    Ok((dims, unreduced))
                }
            }
        })
    }

    /// `sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...] manual_axes={...}
    /// (%local: type, ...) { ... sdy.return ... } : (types) -> types`.
    pub(super) fn parse_manual_computation(&mut self, fs: &mut FuncState, syn: &mut OpSyntax) -> Result<()> {
        let pos = syn.pos;
        self.expect_punct("(")?;
        syn.operands = self.comma_list(")", |p| p.parse_operand(fs))?;
        let mut mesh_name = None;
        let (in_shardings, in_unreduced) = self.parse_sharding_list("in_shardings", &mut mesh_name)?.into_iter().unzip();
        let (out_shardings, out_unreduced) = self.parse_sharding_list("out_shardings", &mut mesh_name)?.into_iter().unzip();
        self.expect_id("manual_axes")?;
        self.expect_punct("=")?;
        self.expect_punct("{")?;
        let manual_axes = self.comma_list("}", |p| Ok(p.expect_kind(TokKind::String, "a mesh axis name")?.text))?;
        self.expect_punct("(")?;
        let args = self.comma_list(")", |p| {
            let t = p.expect_kind(TokKind::PercentId, "a block argument")?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            p.parse_opt_loc()?;
            Ok(super::ops::ArgSyntax { name: t.text, ty, pos: t.start })
        })?;
        let region = self.parse_region(fs, Some(args))?;
        syn.regions.push(region);
        self.parse_function_types(syn)?;
        let mesh = match &mesh_name {
            None => MeshAxes::default(),
            Some(m) => match self.meshes.get(m) {
                Some((mesh, true)) => mesh.clone(),
                Some((_, false)) => return Err(self.unimplemented_at(pos, format!("mesh @{m} with a device order other than 0..N"))),
                None => return Err(self.err_at(pos, format!("unknown mesh @{m}"))),
            },
        };
        let mesh_name = mesh_name.unwrap_or_default();
        syn.kind = Some(OpKind::ManualComputation(ManualComputation {
            mesh,
            mesh_name,
            in_shardings,
            out_shardings,
            manual_axes,
            in_unreduced,
            out_unreduced,
        }));
        Ok(())
    }

    /// Replaces a mesh-axes `replica_groups` attribute by its explicit groups of mesh positions.
    pub(super) fn expand_mesh_groups(&self, syn: &mut OpSyntax) -> Result<()> {
        let Some((_, attr)) = syn.attrs.iter_mut().find(|(k, _)| k == "replica_groups") else { return Ok(()) };
        let Attr::Struct(kind, fields) = attr else { return Ok(()) };
        if kind != "replica_group_mesh_axes" {
            return Ok(());
        }
        let err = |m: String| self.err_at(syn.pos, format!("{}: replica_groups: {m}", syn.name));
        let mesh_name = match fields.iter().find(|f| f.0 == "mesh") {
            Some((_, Attr::SymbolRef(m))) => m.clone(),
            _ => return Err(err("no mesh".into())),
        };
        let axes: Vec<String> = match fields.iter().find(|f| f.0 == "axes") {
            Some((_, Attr::Array(items))) => items
                .iter()
                .map(|a| match a {
                    Attr::Struct(k, f) if k == "axis_ref" => match f.iter().find(|x| x.0 == "name") {
                        Some((_, Attr::Str(n))) if f.len() == 1 => Ok(n.clone()),
                        _ => Err(err("axis references with sub-axes are not supported".into())),
                    },
                    other => Err(err(format!("expected #stablehlo.axis_ref, found {}", other.kind_name()))),
                })
                .collect::<Result<_>>()?,
            _ => return Err(err("no axes".into())),
        };
        let mesh = match self.meshes.get(&mesh_name) {
            Some((m, true)) => m,
            Some((_, false)) => return Err(self.unimplemented_at(syn.pos, format!("mesh @{mesh_name} with a device order other than 0..N"))),
            None => return Err(err(format!("unknown mesh @{mesh_name}"))),
        };
        let groups = mesh.groups_over(&axes).map_err(err)?;
        *attr = Attr::Array(groups.iter().map(|g| Attr::Array(g.iter().map(|&d| Attr::Int(d as i128, None)).collect())).collect());
        Ok(())
    }
}
