//! Private temporary directories: made under the system's temporary
//! directory with a name nobody can guess, entered only by this user
//! (0700, files 0600), and removed when their guard is dropped. For a
//! session resumed from a store, and for the CLI arguments that may carry
//! secrets.

use std::collections::hash_map::RandomState;
use std::fs::{self, DirBuilder, OpenOptions};
use std::hash::BuildHasher as _;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::log;

/// A private temporary directory, removed with everything in it when this
/// is dropped.
#[derive(Debug)]
#[must_use = "dropping it removes the directory"]
pub struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    /// Makes a new one named `<prefix>-<random>`.
    pub fn create(prefix: &str) -> io::Result<Self> {
        let base = std::env::temp_dir();
        let mut last_error = None;
        for attempt in 0..16u32 {
            let random = RandomState::new().hash_one((std::process::id(), attempt));
            let path = base.join(format!("{prefix}-{random:016x}"));
            match private_dir_builder().create(&path) {
                Ok(()) => return Ok(Self { path }),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    last_error = Some(error)
                }
                Err(error) => return Err(error),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no free name")))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes a new file `name` in it (0600) and returns its path.
    pub(crate) fn write(&self, name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
        let path = self.path.join(name);
        write_private(&path, bytes)?;
        Ok(path)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if let Err(error) = fs::remove_dir_all(&self.path) {
            if error.kind() != io::ErrorKind::NotFound {
                log::warn(format_args!(
                    "could not remove the temporary directory {}: {error}",
                    self.path.display()
                ));
            }
        }
    }
}

/// Writes a new file only this user can read (0600), making its parent
/// directories private (0700) if missing.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        private_dir_builder().recursive(true).create(parent)?;
    }
    private_file_options().open(path)?.write_all(bytes)
}

/// Options that create a new file only this user can read (0600 on Unix).
pub fn private_file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Reads exactly `buf.len()` bytes at `offset`, leaving the file's cursor
/// alone on Unix (so threads can share the file).
pub fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            let read = std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )?;
            if read == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            done += read;
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// A directory builder making directories only this user can enter.
pub fn private_dir_builder() -> DirBuilder {
    #[cfg(unix)]
    {
        let mut builder = DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
    }
    #[cfg(not(unix))]
    DirBuilder::new()
}
