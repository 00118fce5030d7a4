// What early stopping saved a study (hptune/core/savings.h) on the wire,
// both ways: the StudyService's GetStoppingSavings answer and what the CLI
// reads of it (`hptune jobs describe`). An unknown number is an absent
// field. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_API_SAVINGS_CONVERSION_H_
#define HPTUNE_SRC_API_SAVINGS_CONVERSION_H_

#include "hptune/core/savings.h"
#include "hptune/v1/study_service.pb.h"

namespace hptune::api {

v1::StoppingSavings StoppingSavingsToProto(const StoppingSavings& savings);
StoppingSavings StoppingSavingsFromProto(const v1::StoppingSavings& proto);

}  // namespace hptune::api

#endif  // HPTUNE_SRC_API_SAVINGS_CONVERSION_H_
