#include "kbref/activation.h"

double kbref_relu(double x) {
    return x > 0.0 ? x : 0.0;
}
