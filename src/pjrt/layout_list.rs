//! Memory layouts as the Layouts extension hands them out: apu stores every array dense and
//! row-major, so every layout is the "descending" one (`{n-1,...,1,0}` in HLO layout text,
//! minor-to-major). `PJRT_Layouts_MemoryLayout*` handles are `Box<MemoryLayout>`.

use apu_pjrt_api::*;

/// One layout object handed to the client.
pub(crate) struct MemoryLayout {
    /// HLO layout text, e.g. `{1,0}`; what `PJRT_Layouts_MemoryLayout_Serialize` returns.
    text: String,
}

impl MemoryLayout {
    /// The row-major layout of a rank-`rank` array: minor-to-major `rank-1, ..., 0`.
    pub fn descending(rank: usize) -> MemoryLayout {
        let dims: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
        MemoryLayout {
            text: format!("{{{}}}", dims.join(",")),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn into_raw(self) -> *mut PJRT_Layouts_MemoryLayout {
        Box::into_raw(Box::new(self)) as *mut PJRT_Layouts_MemoryLayout
    }
}

/// Layouts owned by an executable (one per parameter or output), with the pointer array the C API
/// hands out.
pub(crate) struct LayoutList {
    _layouts: Vec<Box<MemoryLayout>>,
    pointers: Vec<*mut PJRT_Layouts_MemoryLayout>,
}

// SAFETY: the pointers point into `_layouts`, which is immutable and owned by the list.
unsafe impl Send for LayoutList {}
unsafe impl Sync for LayoutList {}

impl LayoutList {
    pub fn descending(ranks: impl IntoIterator<Item = usize>) -> LayoutList {
        let mut layouts: Vec<Box<MemoryLayout>> =
            ranks.into_iter().map(|r| Box::new(MemoryLayout::descending(r))).collect();
        let pointers = layouts
            .iter_mut()
            .map(|l| &mut **l as *mut MemoryLayout as *mut PJRT_Layouts_MemoryLayout)
            .collect();
        LayoutList {
            _layouts: layouts,
            pointers,
        }
    }

    pub fn len(&self) -> usize {
        self.pointers.len()
    }

    pub fn as_ptr(&self) -> *mut *mut PJRT_Layouts_MemoryLayout {
        self.pointers.as_ptr() as *mut *mut PJRT_Layouts_MemoryLayout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descending_layout_text_lists_dims_minor_to_major() {
        assert_eq!(MemoryLayout::descending(0).text(), "{}");
        assert_eq!(MemoryLayout::descending(1).text(), "{0}");
        assert_eq!(MemoryLayout::descending(3).text(), "{2,1,0}");
    }
}
