"""The FMU's ``modelDescription.xml`` (FMI 2.0 co-simulation), written from its variables."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from .._version import __version__
from ._export_c import CTemplate
from ._fmu_variables import FmuVariable

__all__ = ["BASE_UNITS", "model_description"]

# SI base-unit exponents of the units the templates' comments use (FMI 2.0 UnitDefinitions).
BASE_UNITS = {
    "N": {"kg": 1, "m": 1, "s": -2}, "m": {"m": 1}, "s": {"s": 1}, "kg": {"kg": 1},
    "m/s": {"m": 1, "s": -1}, "N/m": {"kg": 1, "s": -2}, "N s/m": {"kg": 1, "s": -1},
    "N/(m s)": {"kg": 1, "s": -3}, "m s": {"m": 1, "s": 1}, "m/s2": {"m": 1, "s": -2},
}


def model_description(alg: CTemplate, variables: list[FmuVariable], guid: str,
                      T: float) -> str:
    """The FMU's ``modelDescription.xml``: co-simulation only, default step T, every
    output discrete with no dependencies (no direct feedthrough)."""
    ident = f"stickslip_{alg.name}"
    units = sorted({v.unit for v in variables if v.unit})
    unit_xml = "".join(
        f'    <Unit name={quoteattr(u)}>'
        + (f'<BaseUnit {" ".join(f"{k}={quoteattr(str(e))}" for k, e in BASE_UNITS[u].items())}/>'
           if u in BASE_UNITS else "")
        + "</Unit>\n" for u in units)
    unit_block = f"  <UnitDefinitions>\n{unit_xml}  </UnitDefinitions>\n" if units else ""
    rows = []
    for v in variables:
        if v.causality == "parameter":
            extra = 'causality="parameter" variability="fixed" initial="exact"'
        elif v.causality == "input":
            extra = 'causality="input" variability="continuous"'
        else:
            extra = 'causality="output" variability="discrete" initial="exact"'
        start = repr(v.start) if v.type == "Real" else str(int(v.start))
        unit = f" unit={quoteattr(v.unit)}" if v.unit and v.type == "Real" else ""
        rows.append(f'    <ScalarVariable name={quoteattr(v.name)} valueReference="{v.vr}" '
                    f'description={quoteattr(v.description)} {extra}>\n'
                    f'      <{v.type} start="{start}"{unit}/>\n    </ScalarVariable>')
    outputs = "".join(f'      <Unknown index="{i + 1}" dependencies=""/>\n'
                      for i, v in enumerate(variables) if v.causality == "output")
    description = (f"{alg.summary}. stickslip {__version__}: one sample per period T; "
                   "fmi2DoStep takes a whole multiple of T and holds the inputs over it.")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription
  fmiVersion="2.0"
  modelName="{ident}"
  guid="{guid}"
  description={quoteattr(description)}
  version="{__version__}"
  generationTool="stickslip {__version__} (stickslip.discrete.export_fmu)"
  variableNamingConvention="flat"
  numberOfEventIndicators="0">
  <CoSimulation
    modelIdentifier="{ident}"
    needsExecutionTool="false"
    canHandleVariableCommunicationStepSize="false"
    canInterpolateInputs="false"
    maxOutputDerivativeOrder="0"
    canRunAsynchronuously="false"
    canBeInstantiatedOnlyOncePerProcess="false"
    canNotUseMemoryManagementFunctions="false"
    canGetAndSetFMUstate="false"
    canSerializeFMUstate="false"
    providesDirectionalDerivative="false">
    <SourceFiles>
      <File name="{ident}.c"/>
      <File name="{ident}_fmu.c"/>
    </SourceFiles>
  </CoSimulation>
{unit_block}  <LogCategories>
    <Category name="logStatusError" description="refused calls and invalid parameters"/>
    <Category name="logStatusWarning" description="non-finite inputs (the state is kept)"/>
    <Category name="logAll" description="every message, including information"/>
  </LogCategories>
  <DefaultExperiment startTime="0.0" stepSize="{T!r}"/>
  <ModelVariables>
{chr(10).join(rows)}
  </ModelVariables>
  <ModelStructure>
    <Outputs>
{outputs}    </Outputs>
  </ModelStructure>
</fmiModelDescription>
"""
