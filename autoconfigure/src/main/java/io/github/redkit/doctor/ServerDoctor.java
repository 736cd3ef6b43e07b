package io.github.redkit.doctor;

/**
 * Examines the Redis server against what the capabilities in use need from it.
 */
public interface ServerDoctor {

	/**
	 * Reads the server's settings and judges them; never throws for a server that does
	 * not answer or refuses to tell, which its findings report as not checked.
	 * @return the report
	 */
	DoctorReport examine();

}
