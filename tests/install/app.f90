! Built by the install test against the installed module source only,
! with pkg-config's fortran_module and libs.
program app
  use pmcshim
  implicit none
  integer :: i

  do i = 1, 5
     call pmcshim_begin("installed_f")
     call pmcshim_end("installed_f")
  end do
  if (pmcshim_active()) then
     print '(a)', "app.f90: under pmcshim"
  else
     print '(a)', "app.f90: alone"
  end if
end program app
