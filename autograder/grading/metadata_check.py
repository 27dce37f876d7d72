"""nbgrader's check of the cells' grading metadata, with its JSON schema checked once per process.

nbgrader's CheckCellMetadata runs twice for every notebook of every student (after sanitising it and
after grading it) and validates each cell with ``jsonschema.validate``, which first checks the schema
itself against JSON Schema's meta-schema: most of the step's time, for a schema that never changes
while the kit runs.  Here the schema is checked once per process and every cell is validated with
the same validator; the checks, their errors and what nbgrader logs are nbgrader's.

Every student's notebooks carry the same grading metadata (intake puts back what a student changed), and
the schema's verdict on a cell depends on that metadata alone: metadata found valid is remembered, so each
is validated once per process (metadata with an error is validated every time, and raises the same error).
"""

from __future__ import annotations

import json
import traceback

import jsonschema
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError
from nbgrader.preprocessors import CheckCellMetadata

NBGRADER_CHECK = f"{CheckCellMetadata.__module__}.{CheckCellMetadata.__name__}"
KIT_CHECK = "autograder.grading.metadata_check.CheckCellMetadataOnce"
_validators: dict[int, jsonschema.protocols.Validator] = {}  # schema version -> its validator, schema checked
VALID_KEPT = 4096  # cells' metadata a process remembers as valid
_valid: set[tuple[int, str]] = set()  # (schema version, a cell's nbgrader metadata as JSON) the schema passed


class _SchemaCheckedOnce(BaseMetadataValidator):
    """nbgrader's BaseMetadataValidator.validate_cell (0.9), with the schema's validator built once."""

    def validate_cell(self, cell) -> None:
        if "nbgrader" not in cell.metadata:
            return
        schema = cell.metadata["nbgrader"].get("schema_version", 0)
        if schema < self.schema_version:
            raise SchemaTooOldError(
                f"Outdated schema version: {schema} (expected {self.schema_version})", schema, self.schema_version
            )
        if schema > self.schema_version:
            raise SchemaTooNewError(
                f"Schema version is too new: {schema} (expected {self.schema_version})", schema, self.schema_version
            )
        if self.schema_version not in _validators:
            cls = jsonschema.validators.validator_for(self.schema)
            cls.check_schema(self.schema)
            _validators[self.schema_version] = cls(self.schema)
        key = (self.schema_version, json.dumps(cell.metadata["nbgrader"], sort_keys=True, default=repr))
        if key in _valid:
            return
        error = jsonschema.exceptions.best_match(
            _validators[self.schema_version].iter_errors(cell.metadata["nbgrader"])
        )
        if error is not None:
            raise error
        if len(_valid) >= VALID_KEPT:
            _valid.clear()
        _valid.add(key)


class SchemaCheckedOnceValidator(MetadataValidator, _SchemaCheckedOnce):
    """nbgrader's MetadataValidator: its own checks call, through ``super()``, the validation above."""


class CheckCellMetadataOnce(CheckCellMetadata):
    """nbgrader's CheckCellMetadata (the same errors, the same log) with :class:`SchemaCheckedOnceValidator`."""

    def preprocess(self, nb, resources):
        try:
            SchemaCheckedOnceValidator().validate_nb(nb)
        except ValidationError as error:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from error
        return nb, resources


def with_kit_check(steps: list) -> list[str]:
    """``steps`` (preprocessors: classes or their import names) with nbgrader's metadata check replaced by the kit's."""
    names = [step if isinstance(step, str) else f"{step.__module__}.{step.__name__}" for step in steps]
    return [
        KIT_CHECK if name in (NBGRADER_CHECK, "nbgrader.preprocessors.CheckCellMetadata") else name for name in names
    ]
