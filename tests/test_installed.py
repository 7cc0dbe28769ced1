"""The folder-name reader of installed distributions against importlib.metadata, the reference."""

from __future__ import annotations

import zipfile
from importlib import metadata
from pathlib import Path

from tfdoctor import installed


def _pairs(dists) -> set[tuple[str, str]]:
    return {(installed.normalize(d.metadata["Name"]), d.version) for d in dists}


def test_this_interpreter_reads_the_same_as_importlib_metadata():
    fast = installed.distributions()
    assert fast is not None
    assert _pairs(fast) == _pairs(metadata.distributions())


def _dist_info(root: Path, folder: str, name: str, version: str, record: str | None = None) -> Path:
    path = root / folder
    path.mkdir()
    (path / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nText.\n")
    if record is not None:
        (path / "RECORD").write_text(record)
    return path


def test_every_folder_form_installers_write(tmp_path):
    _dist_info(tmp_path, "tf_keras-2.16.0.dist-info", "tf-keras", "2.16.0",
               record='tf_keras/__init__.py,sha256=x,10\n"tf_keras/a,b.py",sha256=y,3\ntf_keras-2.16.0.dist-info/RECORD,,\n')
    _dist_info(tmp_path, "noversion.dist-info", "noversion", "0.3")  # a folder name without a version
    egg = tmp_path / "develop.egg-info"  # `setup.py develop` / an editable install's egg-info folder
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: develop\nVersion: 1.2.3\n")
    legacy = tmp_path / "legacy-0.9-py3.11.egg-info"  # an egg-info file, not a folder
    legacy.write_text("Metadata-Version: 1.0\nName: legacy\nVersion: 0.9\n")
    fast = installed.distributions([str(tmp_path)])
    assert fast is not None
    assert _pairs(fast) == _pairs(metadata.distributions(path=[str(tmp_path)]))
    keras = next(d for d in fast if d.name == "tf_keras")
    real = next(d for d in metadata.distributions(path=[str(tmp_path)]) if d.metadata["Name"] == "tf-keras")
    assert keras.files == [str(f) for f in real.files]  # the quoted "a,b.py" entry too
    assert keras.locate_file("tf_keras/__init__.py") == str(tmp_path / "tf_keras" / "__init__.py")


def test_what_it_cannot_read_goes_to_importlib_metadata(tmp_path):
    broken = tmp_path / "broken.dist-info"
    broken.mkdir()  # no METADATA, no version in the name
    assert installed.distributions([str(tmp_path)]) is None
    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("x-1.0.dist-info/METADATA", "Name: x\nVersion: 1.0\n")
    assert installed.distributions([str(archive)]) is None
