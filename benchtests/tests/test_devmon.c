/* kb_devmon: the NVML reason mapping bit by bit, the reason names, PCI bus id
 * parsing, and opening a monitor where it cannot work (no NVIDIA or AMD
 * driver here; on a machine with one, the bus id below matches no device),
 * which must fail softly: -1, a why line naming the library, and every
 * query -1 without touching its output. */
#include "kb_test.h"
#include "machine/devmon.h"

#include <string.h>

/* A well-formed bus id no machine gives a GPU. */
#define NOWHERE "0BAD:FF:1F.7"

static void test_nvml_each_known_bit(void) {
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x0), 0);
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x1), 0);                   /* GpuIdle */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x2), 0);                   /* ApplicationsClocksSetting */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x4), KB_CLOCKS_POWER_CAP); /* SwPowerCap */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x8), KB_CLOCKS_HW_SLOWDOWN);  /* HwSlowdown */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x10), 0);                     /* SyncBoost */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x20), KB_CLOCKS_THERMAL);     /* SwThermalSlowdown */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x40), KB_CLOCKS_THERMAL);     /* HwThermalSlowdown */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x80), KB_CLOCKS_POWER_BRAKE); /* HwPowerBrakeSlowdown */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x100), 0);                    /* DisplayClockSetting */
}

static void test_nvml_not_limits_together_are_free(void) {
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x1 | 0x2 | 0x10 | 0x100), 0);
}

static void test_nvml_combined_masks(void) {
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x4 | 0x20), KB_CLOCKS_POWER_CAP | KB_CLOCKS_THERMAL);
    /* Idle next to a real limit: the limit still shows. */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x1 | 0x4), KB_CLOCKS_POWER_CAP);
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x20 | 0x40), KB_CLOCKS_THERMAL);
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x8 | 0x80),
                  KB_CLOCKS_HW_SLOWDOWN | KB_CLOCKS_POWER_BRAKE);
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x1ff), KB_CLOCKS_POWER_CAP | KB_CLOCKS_THERMAL |
                                                     KB_CLOCKS_HW_SLOWDOWN | KB_CLOCKS_POWER_BRAKE);
}

static void test_nvml_unknown_bits_are_other(void) {
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x200), KB_CLOCKS_OTHER); /* BoardLimit, newer NVML */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x400), KB_CLOCKS_OTHER); /* Reliability */
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(1ull << 63), KB_CLOCKS_OTHER);
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x1 | (1ull << 40)), KB_CLOCKS_OTHER);
    ASSERT_INT_EQ(kb_devmon_nvml_reasons(0x4 | (1ull << 40)),
                  KB_CLOCKS_POWER_CAP | KB_CLOCKS_OTHER);
}

static void test_reason_names(void) {
    char buf[128];
    kb_devmon_reason_names(0, buf, sizeof buf);
    ASSERT(strcmp(buf, "") == 0);
    kb_devmon_reason_names(KB_CLOCKS_POWER_CAP, buf, sizeof buf);
    ASSERT(strcmp(buf, "power_cap") == 0);
    kb_devmon_reason_names(KB_CLOCKS_POWER_CAP | KB_CLOCKS_THERMAL, buf, sizeof buf);
    ASSERT(strcmp(buf, "power_cap,thermal") == 0);
    kb_devmon_reason_names(KB_CLOCKS_POWER_CAP | KB_CLOCKS_THERMAL | KB_CLOCKS_HW_SLOWDOWN |
                               KB_CLOCKS_POWER_BRAKE | KB_CLOCKS_OTHER,
                           buf, sizeof buf);
    ASSERT(strcmp(buf, "power_cap,thermal,hw_slowdown,power_brake,other") == 0);
    /* Bits we do not define read as "other", once. */
    kb_devmon_reason_names(KB_CLOCKS_OTHER | 0x100u, buf, sizeof buf);
    ASSERT(strcmp(buf, "other") == 0);
    kb_devmon_reason_names(KB_CLOCKS_THERMAL | 0x80000000u, buf, sizeof buf);
    ASSERT(strcmp(buf, "thermal,other") == 0);
}

static void test_reason_names_small_buffer(void) {
    char buf[16];
    memset(buf, 'x', sizeof buf);
    /* "power_cap,thermal" needs 18 bytes: only whole names go in. */
    kb_devmon_reason_names(KB_CLOCKS_POWER_CAP | KB_CLOCKS_THERMAL, buf, sizeof buf);
    ASSERT(strcmp(buf, "power_cap") == 0);
    kb_devmon_reason_names(KB_CLOCKS_POWER_CAP, buf, 4);
    ASSERT(strcmp(buf, "") == 0);
    buf[0] = 'x';
    kb_devmon_reason_names(KB_CLOCKS_POWER_CAP, buf, 0); /* writes nothing */
    ASSERT(buf[0] == 'x');
}

static void test_parse_bus_id(void) {
    unsigned long long id = 0;
    ASSERT_INT_EQ(kb_devmon_parse_bus_id("0000:3B:00.0", &id), 0);
    ASSERT(id == 0x3B00ull);
    ASSERT_INT_EQ(kb_devmon_parse_bus_id("0000:3b:00.0", &id), 0);
    ASSERT(id == 0x3B00ull);
    /* device 0x1f, function 7: 0x1f << 3 | 7 = 0xff. */
    ASSERT_INT_EQ(kb_devmon_parse_bus_id("0001:c1:1F.7", &id), 0);
    ASSERT(id == (1ull << 32 | 0xC1ull << 8 | 0xFFull));
    ASSERT_INT_EQ(kb_devmon_parse_bus_id("ABCD:Ef:0a.3", &id), 0);
    ASSERT(id == (0xABCDull << 32 | 0xEFull << 8 | 0x0Aull << 3 | 3));
    /* NVML writes the domain with 8 digits. */
    ASSERT_INT_EQ(kb_devmon_parse_bus_id("00000000:3B:00.0", &id), 0);
    ASSERT(id == 0x3B00ull);
    ASSERT_INT_EQ(kb_devmon_parse_bus_id("FFFFFFFF:FF:1F.7", &id), 0);
    ASSERT(id == (0xFFFFFFFFull << 32 | 0xFFFFull));
}

static void test_parse_bus_id_rejects_malformed(void) {
    static const char *const bad[] = {
        "",                  /* empty */
        "0000:3B:00",        /* no function */
        "0000:3B:00.",       /* empty function */
        "0000:3B.00.0",      /* wrong separator */
        "0000-3B-00.0",      /* wrong separators */
        "0000:3B:00.8",      /* function has 3 bits */
        "0000:3B:20.0",      /* device has 5 bits */
        "0000:3B:0.0",       /* device needs 2 digits */
        "0000:3B:000.0",     /* ... and no more */
        "0000:3:00.0",       /* bus needs 2 digits */
        "0000:3BC:00.0",     /* ... and no more */
        "000000000:3B:00.0", /* domain has at most 8 digits */
        ":3B:00.0",          /* no domain */
        "0000:3G:00.0",      /* not hex */
        "0000:3B:00.0 ",     /* trailing space */
        " 0000:3B:00.0",     /* leading space */
        "+000:3B:00.0",      /* sign */
        "0x00:3B:00.0",      /* prefix */
        "0000:3B:00.00",     /* function has 1 digit */
        "0000:3B:00.0\n",    /* trailing newline */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        unsigned long long id = 12345;
        if (kb_devmon_parse_bus_id(bad[i], &id) != -1) KB_TEST_FAIL("accepted '%s'", bad[i]);
        if (id != 12345) KB_TEST_FAIL("'%s' wrote its output", bad[i]);
    }
    unsigned long long id;
    ASSERT_INT_EQ(kb_devmon_parse_bus_id(NULL, &id), -1);
    ASSERT_INT_EQ(kb_devmon_parse_bus_id("0000:3B:00.0", NULL), -1);
}

/* Every query on a monitor that could not open: -1, output untouched. */
static void check_queries_fail(kb_devmon *m) {
    unsigned reasons = 77;
    double joules = -1.5;
    ASSERT_INT_EQ(kb_devmon_clock_reasons(m, &reasons), -1);
    ASSERT_INT_EQ(kb_devmon_energy_j(m, &joules), -1);
    ASSERT_INT_EQ(reasons, 77);
    ASSERT_NEAR(joules, -1.5, 0);
}

static void test_open_nvml_without_driver(void) {
    kb_devmon m;
    ASSERT_INT_EQ(kb_devmon_open(&m, KB_DEVMON_NVML, NOWHERE), -1);
    ASSERT_INT_EQ(m.source, KB_DEVMON_NVML);
    ASSERT(!m.clocks_ok && !m.energy_ok);
    ASSERT_STR_CONTAINS(m.why_clocks, "libnvidia-ml.so.1");
    ASSERT_STR_CONTAINS(m.why_energy, "libnvidia-ml.so.1");
    printf("     nvml: %s\n", m.why_clocks);
    check_queries_fail(&m);
    kb_devmon_close(&m);
    kb_devmon_close(&m); /* twice is harmless */
    check_queries_fail(&m);
}

static void test_open_rocm_smi_without_driver(void) {
    kb_devmon m;
    ASSERT_INT_EQ(kb_devmon_open(&m, KB_DEVMON_ROCM_SMI, NOWHERE), -1);
    ASSERT_INT_EQ(m.source, KB_DEVMON_ROCM_SMI);
    ASSERT(!m.clocks_ok && !m.energy_ok);
    /* librocm_smi64.so.1 or, failing that, librocm_smi64.so */
    ASSERT_STR_CONTAINS(m.why_clocks, "librocm_smi64.so");
    ASSERT_STR_CONTAINS(m.why_energy, "librocm_smi64.so");
    printf("     rocm_smi: %s\n", m.why_clocks);
    check_queries_fail(&m);
    kb_devmon_close(&m);
    check_queries_fail(&m);
}

static void test_open_rocm_smi_malformed_bus_id(void) {
    kb_devmon m;
    ASSERT_INT_EQ(kb_devmon_open(&m, KB_DEVMON_ROCM_SMI, "GPU0"), -1);
    ASSERT_STR_CONTAINS(m.why_clocks, "malformed PCI bus id 'GPU0'");
    ASSERT_STR_CONTAINS(m.why_energy, "malformed PCI bus id 'GPU0'");
    check_queries_fail(&m);
    ASSERT_INT_EQ(kb_devmon_open(&m, KB_DEVMON_ROCM_SMI, NULL), -1);
    ASSERT_STR_CONTAINS(m.why_clocks, "malformed");
    kb_devmon_close(&m);
}

static void test_open_nvml_null_bus_id(void) {
    kb_devmon m;
    ASSERT_INT_EQ(kb_devmon_open(&m, KB_DEVMON_NVML, NULL), -1);
    ASSERT_STR_CONTAINS(m.why_clocks, "libnvidia-ml.so.1");
    check_queries_fail(&m);
    kb_devmon_close(&m);
}

static void test_unknown_source_and_null_arguments(void) {
    kb_devmon m;
    ASSERT_INT_EQ(kb_devmon_open(&m, (kb_devmon_source)42, NOWHERE), -1);
    ASSERT_STR_CONTAINS(m.why_clocks, "unknown");
    check_queries_fail(&m);
    kb_devmon_close(&m);
    ASSERT_INT_EQ(kb_devmon_open(NULL, KB_DEVMON_NVML, NOWHERE), -1);
    unsigned reasons;
    double value;
    ASSERT_INT_EQ(kb_devmon_clock_reasons(NULL, &reasons), -1);
    ASSERT_INT_EQ(kb_devmon_energy_j(NULL, &value), -1);
    ASSERT_INT_EQ(kb_devmon_clock_reasons(&m, NULL), -1);
    ASSERT_INT_EQ(kb_devmon_energy_j(&m, NULL), -1);
    kb_devmon_close(NULL);
}

int main(void) {
    RUN_TEST(test_nvml_each_known_bit);
    RUN_TEST(test_nvml_not_limits_together_are_free);
    RUN_TEST(test_nvml_combined_masks);
    RUN_TEST(test_nvml_unknown_bits_are_other);
    RUN_TEST(test_reason_names);
    RUN_TEST(test_reason_names_small_buffer);
    RUN_TEST(test_parse_bus_id);
    RUN_TEST(test_parse_bus_id_rejects_malformed);
    RUN_TEST(test_open_nvml_without_driver);
    RUN_TEST(test_open_rocm_smi_without_driver);
    RUN_TEST(test_open_rocm_smi_malformed_bus_id);
    RUN_TEST(test_open_nvml_null_bus_id);
    RUN_TEST(test_unknown_source_and_null_arguments);
    return kb_test_summary();
}
