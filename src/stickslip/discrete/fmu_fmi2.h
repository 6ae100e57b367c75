/* stickslip_fmi2.h -- the FMI 2.0 types and functions a stickslip co-simulation FMU
 * implements. Written for stickslip (stickslip.discrete.export_fmu), not copied from the
 * standard's headers; the definitions are ABI-compatible with them (a build may pass
 * -DSTICKSLIP_FMI2_STANDARD_HEADERS to compile against fmi2Functions.h instead).
 */
#ifndef STICKSLIP_FMI2_H
#define STICKSLIP_FMI2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define STICKSLIP_FMI2_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define STICKSLIP_FMI2_EXPORT __attribute__((visibility("default")))
#else
#define STICKSLIP_FMI2_EXPORT
#endif

#define fmi2TypesPlatform "default"
#define fmi2Version "2.0"
#define fmi2True 1
#define fmi2False 0

typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum {
    fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated
} fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String instanceName,
                                   fmi2Status, fmi2String category, fmi2String message, ...);
typedef void *(*fmi2CallbackAllocateMemory)(size_t nobj, size_t size);
typedef void (*fmi2CallbackFreeMemory)(void *obj);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment, fmi2Status);

typedef struct {
    const fmi2CallbackLogger logger;
    const fmi2CallbackAllocateMemory allocateMemory;
    const fmi2CallbackFreeMemory freeMemory;
    const fmi2StepFinished stepFinished;
    const fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

#define STICKSLIP_FMI2_FN(ret, name) STICKSLIP_FMI2_EXPORT ret name
STICKSLIP_FMI2_FN(const char *, fmi2GetTypesPlatform)(void);
STICKSLIP_FMI2_FN(const char *, fmi2GetVersion)(void);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetDebugLogging)(fmi2Component, fmi2Boolean, size_t,
                                                 const fmi2String[]);
STICKSLIP_FMI2_FN(fmi2Component, fmi2Instantiate)(fmi2String, fmi2Type, fmi2String, fmi2String,
                                                const fmi2CallbackFunctions *, fmi2Boolean,
                                                fmi2Boolean);
STICKSLIP_FMI2_FN(void, fmi2FreeInstance)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetupExperiment)(fmi2Component, fmi2Boolean, fmi2Real,
                                                 fmi2Real, fmi2Boolean, fmi2Real);
STICKSLIP_FMI2_FN(fmi2Status, fmi2EnterInitializationMode)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2ExitInitializationMode)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2Terminate)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2Reset)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetReal)(fmi2Component, const fmi2ValueReference[], size_t,
                                         fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetInteger)(fmi2Component, const fmi2ValueReference[], size_t,
                                            fmi2Integer[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetBoolean)(fmi2Component, const fmi2ValueReference[], size_t,
                                            fmi2Boolean[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetString)(fmi2Component, const fmi2ValueReference[], size_t,
                                            fmi2String[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetReal)(fmi2Component, const fmi2ValueReference[], size_t,
                                         const fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetInteger)(fmi2Component, const fmi2ValueReference[], size_t,
                                            const fmi2Integer[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetBoolean)(fmi2Component, const fmi2ValueReference[], size_t,
                                            const fmi2Boolean[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetString)(fmi2Component, const fmi2ValueReference[], size_t,
                                           const fmi2String[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetFMUstate)(fmi2Component, fmi2FMUstate *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetFMUstate)(fmi2Component, fmi2FMUstate);
STICKSLIP_FMI2_FN(fmi2Status, fmi2FreeFMUstate)(fmi2Component, fmi2FMUstate *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SerializedFMUstateSize)(fmi2Component, fmi2FMUstate, size_t *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SerializeFMUstate)(fmi2Component, fmi2FMUstate, fmi2Byte[],
                                                   size_t);
STICKSLIP_FMI2_FN(fmi2Status, fmi2DeSerializeFMUstate)(fmi2Component, const fmi2Byte[], size_t,
                                                     fmi2FMUstate *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetDirectionalDerivative)(fmi2Component,
                                                          const fmi2ValueReference[], size_t,
                                                          const fmi2ValueReference[], size_t,
                                                          const fmi2Real[], fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetRealInputDerivatives)(fmi2Component,
                                                         const fmi2ValueReference[], size_t,
                                                         const fmi2Integer[], const fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetRealOutputDerivatives)(fmi2Component,
                                                          const fmi2ValueReference[], size_t,
                                                          const fmi2Integer[], fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2DoStep)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
STICKSLIP_FMI2_FN(fmi2Status, fmi2CancelStep)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetStatus)(fmi2Component, const fmi2StatusKind, fmi2Status *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetRealStatus)(fmi2Component, const fmi2StatusKind,
                                               fmi2Real *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetIntegerStatus)(fmi2Component, const fmi2StatusKind,
                                                  fmi2Integer *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetBooleanStatus)(fmi2Component, const fmi2StatusKind,
                                                  fmi2Boolean *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetStringStatus)(fmi2Component, const fmi2StatusKind,
                                                 fmi2String *);

#ifdef __cplusplus
}
#endif

#endif /* STICKSLIP_FMI2_H */
