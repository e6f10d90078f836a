//! [`EnergyMeter`]: the GPU's energy counter, read through NVML (`libnvidia-ml.so.1`, part of the
//! NVIDIA driver), loaded at run time as the CUDA driver is, so that nothing is needed at build time.
//! The counter is the device's total energy since the driver loaded, in millijoules (Volta and
//! newer); the difference of two readings is the energy of what ran in between, whole board included.

use std::ffi::{c_char, c_int, c_ulonglong, c_void, CString};

use cudarc::driver::sys::CUdevice_attribute;
use libloading::{Library, Symbol};

use crate::error::CudaError;
use crate::gpu::Gpu;

/// NVML's handle of a device.
type NvmlDevice = *mut c_void;

/// A loaded NVML with the handle of one device.
pub struct EnergyMeter {
    library: Library,
    device: NvmlDevice,
}

// SAFETY: an NVML device handle is an opaque token that NVML accepts from any thread (NVML is
// thread-safe), and the library stays loaded as long as the meter lives.
unsafe impl Send for EnergyMeter {}
// SAFETY: as above; reading the counter has no effect on the meter.
unsafe impl Sync for EnergyMeter {}

/// NVML's success code.
const NVML_SUCCESS: c_int = 0;

impl EnergyMeter {
    /// Loads NVML and finds the device `gpu` runs on, by its PCI address.
    pub fn for_gpu(gpu: &Gpu) -> Result<EnergyMeter, CudaError> {
        let attribute = |a: CUdevice_attribute| {
            gpu.ctx.attribute(a).map_err(|e| CudaError::Energy(format!("reading the device's PCI address: {e}")))
        };
        let domain = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?;
        let bus = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?;
        let slot = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?;
        let address = CString::new(format!("{domain:08x}:{bus:02x}:{slot:02x}.0")).expect("no NUL in hex digits");
        // SAFETY: loading the driver's NVML runs its initialisers, which have no preconditions.
        let library = unsafe { Library::new("libnvidia-ml.so.1") }
            .map_err(|e| CudaError::Energy(format!("libnvidia-ml.so.1 could not be loaded ({e})")))?;
        let mut device: NvmlDevice = std::ptr::null_mut();
        // SAFETY: the symbols are NVML's C functions with these signatures (nvml.h); `address` is a
        // NUL-terminated string and `device` a valid place for the handle.
        unsafe {
            let init: Symbol<unsafe extern "C" fn() -> c_int> = symbol(&library, b"nvmlInit_v2\0")?;
            check(init(), "nvmlInit_v2")?;
            let by_pci: Symbol<unsafe extern "C" fn(*const c_char, *mut NvmlDevice) -> c_int> =
                symbol(&library, b"nvmlDeviceGetHandleByPciBusId_v2\0")?;
            check(by_pci(address.as_ptr(), &mut device), "finding the device by its PCI address")?;
        }
        let meter = EnergyMeter { library, device };
        meter.millijoules()?;
        Ok(meter)
    }

    /// The device's energy counter, in millijoules.
    pub fn millijoules(&self) -> Result<u64, CudaError> {
        let mut energy: c_ulonglong = 0;
        // SAFETY: the symbol has this signature (nvml.h); the handle came from NVML for this library.
        unsafe {
            let read: Symbol<unsafe extern "C" fn(NvmlDevice, *mut c_ulonglong) -> c_int> =
                symbol(&self.library, b"nvmlDeviceGetTotalEnergyConsumption\0")?;
            check(read(self.device, &mut energy), "reading the energy counter (needs a Volta or newer GPU)")?;
        }
        Ok(energy)
    }
}

impl Drop for EnergyMeter {
    fn drop(&mut self) {
        // SAFETY: nvmlShutdown balances the nvmlInit_v2 of `for_gpu`.
        unsafe {
            if let Ok(shutdown) = self.library.get::<unsafe extern "C" fn() -> c_int>(b"nvmlShutdown\0") {
                shutdown();
            }
        }
    }
}

/// NVML's function `name`.
///
/// # Safety
/// `T` must be the function's C signature.
unsafe fn symbol<'l, T>(library: &'l Library, name: &[u8]) -> Result<Symbol<'l, T>, CudaError> {
    // SAFETY: the caller gives the right signature.
    unsafe { library.get(name) }.map_err(|e| {
        CudaError::Energy(format!("NVML has no {} ({e})", String::from_utf8_lossy(&name[..name.len() - 1])))
    })
}

/// `Ok` for NVML's success code, else an error naming `what` and the code.
fn check(code: c_int, what: &str) -> Result<(), CudaError> {
    if code == NVML_SUCCESS {
        Ok(())
    } else {
        Err(CudaError::Energy(format!("NVML failed {what} (error {code})")))
    }
}
