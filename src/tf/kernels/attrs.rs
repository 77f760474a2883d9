//! Reading op attributes at kernel construction.

use crate::tf::symbols::{OwnedStatus, TfApi};
use apu_pjrt_api::tf as c;
use std::ffi::CString;

/// The construction context of one kernel, with typed attribute getters that return messages on error.
pub struct Attrs<'a> {
    pub api: &'static TfApi,
    pub ctx: *mut c::TF_OpKernelConstruction,
    pub _life: std::marker::PhantomData<&'a ()>,
}

fn name(attr: &str) -> CString {
    CString::new(attr).unwrap_or_default()
}

impl Attrs<'_> {
    fn status(&self, attr: &str, s: &OwnedStatus) -> Result<(), String> {
        if s.is_ok() {
            Ok(())
        } else {
            Err(format!("attribute {attr}: {}", s.message()))
        }
    }

    pub fn bool(&self, attr: &str) -> Result<bool, String> {
        let s = OwnedStatus::new(self.api);
        let mut v: c::TF_Bool = 0;
        // SAFETY: `ctx` is live during construction; `v` outlives the call.
        unsafe { (self.api.get_attr_bool.unwrap())(self.ctx, name(attr).as_ptr(), &mut v, s.raw) };
        self.status(attr, &s).map(|_| v != 0)
    }

    /// A boolean attribute that defaults to false when the op has none.
    pub fn bool_or_false(&self, attr: &str) -> bool {
        self.bool(attr).unwrap_or(false)
    }

    pub fn dtype(&self, attr: &str) -> Result<c::TF_DataType, String> {
        let s = OwnedStatus::new(self.api);
        let mut v: c::TF_DataType = 0;
        // SAFETY: as above.
        unsafe { (self.api.get_attr_type.unwrap())(self.ctx, name(attr).as_ptr(), &mut v, s.raw) };
        self.status(attr, &s).map(|_| v)
    }

    fn size(&self, attr: &str) -> Result<(i32, i32), String> {
        let s = OwnedStatus::new(self.api);
        let (mut list, mut total) = (0i32, 0i32);
        // SAFETY: as above.
        unsafe { (self.api.get_attr_size.unwrap())(self.ctx, name(attr).as_ptr(), &mut list, &mut total, s.raw) };
        self.status(attr, &s).map(|_| (list, total))
    }

    pub fn string(&self, attr: &str) -> Result<String, String> {
        let (_, total) = self.size(attr)?;
        let mut buf = vec![0u8; total.max(0) as usize + 1];
        let s = OwnedStatus::new(self.api);
        // SAFETY: `buf` has room for `total` bytes.
        unsafe { (self.api.get_attr_string.unwrap())(self.ctx, name(attr).as_ptr(), buf.as_mut_ptr() as *mut _, total.max(0) as usize, s.raw) };
        self.status(attr, &s)?;
        buf.truncate(total.max(0) as usize);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// A `list(int)` attribute (read as int32: TensorFlow's strides, dilations and paddings fit).
    pub fn ints(&self, attr: &str) -> Result<Vec<i64>, String> {
        let (n, _) = self.size(attr)?;
        let mut v = vec![0i32; n.max(0) as usize];
        let s = OwnedStatus::new(self.api);
        // SAFETY: `v` has room for `n` values.
        unsafe { (self.api.get_attr_int32_list.unwrap())(self.ctx, name(attr).as_ptr(), v.as_mut_ptr(), n, s.raw) };
        self.status(attr, &s).map(|_| v.into_iter().map(i64::from).collect())
    }

    /// An `int` attribute.
    pub fn int(&self, attr: &str) -> Result<i64, String> {
        let s = OwnedStatus::new(self.api);
        let mut v: i64 = 0;
        // SAFETY: as above; `v` outlives the call.
        unsafe { (self.api.get_attr_int64.unwrap())(self.ctx, name(attr).as_ptr(), &mut v, s.raw) };
        self.status(attr, &s).map(|_| v)
    }

    /// An `int` attribute that defaults to 0 when the op has none.
    pub fn int_or_zero(&self, attr: &str) -> i64 {
        self.int(attr).unwrap_or(0)
    }
}
