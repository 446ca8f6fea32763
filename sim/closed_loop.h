// A controller tracking a reference, as the simulator's input source: u = controller(t, x, ξ,
// reference(t)), with the controller's signals (tracking errors, template energies, matching
// residual, saturation) as channels.
#pragma once

#include <limits>
#include <memory>

#include "core/control/controller.h"
#include "core/control/recovery.h"
#include "core/control/reference.h"
#include "sim/input_source.h"

namespace rbs {

class ClosedLoop : public InputSource {
 public:
  ClosedLoop(std::unique_ptr<Controller> controller, std::unique_ptr<Reference> reference);
  /// As above, keeping `controller_model` (the model the controller was made with, e.g. a
  /// scaledModel of the plant, core/control/perturbation.h) alive as long as the controller.
  ClosedLoop(std::unique_ptr<Controller> controller, std::unique_ptr<Reference> reference,
             std::shared_ptr<const Model> controller_model);

  void compute(double t, const State& state, VecX& u) override;
  void evaluateForSample(double t, const State& state, VecX& u) override;
  bool plantRate(const Model& plant, const State& state, const VecX& u, double stabilization_gain, VecX& xdot,
                 VecX& xidot) override;
  void reset(double t0) override;
  double supervisionPeriod() const override;
  bool supervise(double t, const State& state) override;
  std::vector<ChannelInfo> channels() const override;
  void sample(double* out) override;
  std::string failure() const override { return failure_; }
  bool tracksReference() const override { return true; }
  const ReferenceSample* referenceForSample(double t) override;
  /// The same reference made on the plant, for referenceForSample() when the controller's design
  /// model has other coordinates (a vehicle with propellers: its force model has no rotor joints).
  /// The joints `plant` and `design` (the model the controller's reference is on) share carry a
  /// recovery's reference over to the plant's coordinates (only their offsets are kept).
  void setPlantReference(std::unique_ptr<Reference> reference, const Model& plant, const Model& design);
  /// How to retime the reference (makeReference with a ReferenceRetiming): a controller that
  /// recovers (Controller::recovery()) needs it to rejoin the manoeuvre; without it, it does not
  /// recover. Throws ControlError when the reference cannot be retimed.
  void setReferenceFactory(ReferenceFactory factory);

  Controller& controller() { return *controller_; }
  /// The scene's reference (the manoeuvre); activeReference() is the one the controller tracks.
  const Reference& reference() const { return *reference_; }
  const Reference& activeReference() const;

 private:
  std::shared_ptr<const Model> controller_model_;  ///< declared first: destroyed after the controller
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<Reference> reference_;
  ReferenceSample sample_;
  /// The time sample_ belongs to: a Reference is a function of t alone, so evaluations at the
  /// same time (RK4's two midpoint stages, a step's end and the next one's start) share it.
  double sample_time_ = std::numeric_limits<double>::quiet_NaN();
  std::unique_ptr<Reference> plant_reference_;  ///< null: the controller's reference is on the plant
  /// Joints the plant and the design model share: (plant x, design x, nx, plant ξ, design ξ, nξ).
  struct SharedJoint {
    int plant_x, design_x, nx, plant_xi, design_xi, nxi;
  };
  std::vector<SharedJoint> shared_joints_;
  ReferenceSample design_sample_;  ///< scratch: the active reference on the design model
  ReferenceSample output_sample_;  ///< referenceForSample()'s when it cannot share sample_
  double output_sample_time_ = std::numeric_limits<double>::quiet_NaN();
  std::string failure_;
  /// A supervision instant that could not make the recovery's reference: every later evaluation
  /// fails with it (the run stops there with the message).
  std::string supervision_failure_;
  bool last_ok_ = false;  ///< the last evaluation succeeded (signals are meaningful)
  // What the last evaluation saw: a sample at the same time and state with the same parameters
  // (a hold instant that is also an output instant) reports its signals without a second run.
  double last_t_ = 0.0;
  State last_state_;
  std::uint64_t last_parameters_version_ = 0;

  /// The controller's recovery once it can retime the reference (setReferenceFactory), else null.
  Recovery* recovery() const;
  /// Samples the reference and runs the controller; a failure (false or an exception) gives NaN
  /// inputs and, when `record_failure`, the message of failure().
  void evaluate(double t, const State& state, VecX& u, bool record_failure);
};

}  // namespace rbs
