package io.github.redkit.doctor.actuate;

import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.doctor.DoctorReport;
import io.github.redkit.doctor.ServerDoctor;
import org.jspecify.annotations.Nullable;

/**
 * The {@code doctor} section of the {@code redkit} endpoint: the server doctor's full
 * report, examined afresh on each read.
 */
public final class DoctorEndpointSection implements RedkitEndpointSection {

	private final ServerDoctor doctor;

	/**
	 * Creates the section.
	 * @param doctor the doctor
	 */
	public DoctorEndpointSection(ServerDoctor doctor) {
		this.doctor = doctor;
	}

	@Override
	public String name() {
		return "doctor";
	}

	@Override
	public @Nullable String capability() {
		return null;
	}

	@Override
	public DoctorReport read(@Nullable String cursor, @Nullable Integer count) {
		return this.doctor.examine();
	}

}
