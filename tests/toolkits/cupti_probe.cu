// cupti_probe.cu: the smallest program that uses CUPTI's activity API, the way
// the harness does. It only has to compile and link against a toolkit; run
// without a GPU it says so and exits 77.
#include <cupti_activity.h>

#include <stdio.h>
#include <stdlib.h>

static const size_t ACTIVITY_BUFFER_BYTES = 1 << 16;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = (uint8_t *)malloc(ACTIVITY_BUFFER_BYTES);
    *size = ACTIVITY_BUFFER_BYTES;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)context;
    (void)stream;
    (void)size;
    (void)valid;
    free(buffer);
}

int main(void)
{
    CUptiResult result = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (result == CUPTI_SUCCESS)
        result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (result != CUPTI_SUCCESS) {
        const char *why = "unknown";
        cuptiGetResultString(result, &why);
        printf("cupti_probe: CUPTI not usable here: %s\n", why);
        return 77;
    }
    cuptiActivityFlushAll(0);
    printf("cupti_probe: CUPTI activity API ready\n");
    return 0;
}
